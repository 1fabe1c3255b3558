// harness.mjs — what the SDK integration tests share: TAP output (ok,
// skip, done) and the text of a tool result.

let n = 0;
let failed = 0;

// One check: "ok N - name", or "not ok" with the diagnostic as # lines.
// Returns cond, so a test can stop early when a step failed.
export function ok(cond, name, diag) {
  n++;
  if (cond) {
    console.log(`ok ${n} - ${name}`);
  } else {
    failed++;
    console.log(`not ok ${n} - ${name}`);
    if (diag !== undefined)
      for (const line of String(typeof diag === 'string' ? diag : JSON.stringify(diag, null, 1)).split('\n'))
        console.log(`# ${line}`);
  }
  return cond;
}

export function skip(name, why) {
  n++;
  console.log(`ok ${n} - ${name} # SKIP ${why}`);
}

// The plan line, and the exit status: 1 when any check failed.
export function done() {
  console.log(`1..${n}`);
  process.exit(failed ? 1 : 0);
}

export const textOf = (result) =>
  (result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
