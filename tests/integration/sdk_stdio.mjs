// sdk_stdio.mjs RIG [CONFORMANCE_SERVER] — `rig serve` against the official
// MCP TypeScript SDK's client over stdio: a client nobody here wrote. TAP
// output; exits non-zero when a check fails.
//
// The SDK spawns `RIG serve` itself (StdioClientTransport), negotiates,
// lists and calls tools, cancels a call through an AbortSignal (the SDK
// sends notifications/cancelled) and asks for progress (onprogress makes
// it send a progressToken). With CONFORMANCE_SERVER (examples/conformance_server)
// it also answers the elicitation/create and sampling/createMessage a tool
// sends (sdk_ask.mjs); without it those checks are skipped. A client's roots
// replacing --root for the file tools are checked in sdk_roots.mjs.
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { askChecks } from './sdk_ask.mjs';
import { rootsChecks } from './sdk_roots.mjs';
import { ok, done, textOf, skip } from './harness.mjs';

const rig = process.argv[2];
const example = process.argv[3];
if (!rig) {
  console.error('usage: node sdk_stdio.mjs RIG [CONFORMANCE_SERVER]');
  process.exit(2);
}

const RIG_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
// The six built-ins, then the file tools (rig serve adds them, confined to --root).
const BUILTINS = [
  'think', 'update_todos', 'sleep', 'get_current_time', 'convert_time', 'finish',
  'read_file', 'list_directory', 'directory_tree', 'get_file_info', 'read_multiple_files', 'write_file', 'create_directory', 'move_file', 'edit_file', 'glob', 'grep',
];

// Runs one check; an exception fails it with the error as diagnostics.
async function check(name, fn) {
  try {
    const r = await fn();
    if (r && r.skip)
      skip(name, r.skip);
    else
      ok(r === true || (r && r.ok), name, r && r.diag);
  } catch (e) {
    ok(false, name, e && e.stack ? e.stack : String(e));
  }
}

const stderr = [];
const transport = new StdioClientTransport({ command: rig, args: ['serve'], stderr: 'pipe' });
transport.stderr?.on('data', (d) => stderr.push(String(d)));
// The negotiated version: the SDK hands it to a transport that wants it.
let negotiated;
transport.setProtocolVersion = (v) => { negotiated = v; };

const client = new Client({ name: 'rig-sdk-interop', version: '1.0.0' }, { capabilities: {} });
const clientErrors = [];
client.onerror = (e) => clientErrors.push(String(e && e.message ? e.message : e));

await check('initialize over stdio: serverInfo.name is "rig", protocolVersion is rig\'s', async () => {
  await client.connect(transport);
  const info = client.getServerVersion();
  return {
    ok: info && info.name === 'rig' && RIG_VERSIONS.includes(negotiated),
    diag: { serverInfo: info, protocolVersion: negotiated },
  };
});

await check('initialize: tools capability and instructions', async () => {
  const caps = client.getServerCapabilities();
  const instr = client.getInstructions();
  return { ok: !!(caps && caps.tools) && typeof instr === 'string' && instr.length > 0, diag: { caps, instr } };
});

let tools = [];
await check('tools/list: the built-ins and file tools, each with an object inputSchema', async () => {
  tools = (await client.listTools()).tools;
  const names = tools.map((t) => t.name);
  const bad = BUILTINS.filter((b) => {
    const t = tools.find((x) => x.name === b);
    return !t || !t.inputSchema || t.inputSchema.type !== 'object';
  });
  return { ok: bad.length === 0, diag: { missing_or_bad: bad, names } };
});

await check('tools/call get_current_time {timezone:"UTC"}: structuredContent.timezone is UTC', async () => {
  // The SDK checks structuredContent against the tool's outputSchema, if any.
  const r = await client.callTool({ name: 'get_current_time', arguments: { timezone: 'UTC' } });
  return { ok: !r.isError && r.structuredContent && r.structuredContent.timezone === 'UTC', diag: r };
});

await check('tools/call with bad arguments: an isError result that names the tool', async () => {
  const r = await client.callTool({ name: 'sleep', arguments: { seconds: 'soon' } });
  return { ok: r.isError === true && textOf(r).includes('sleep'), diag: r };
});

await check('tools/call of an unknown tool: JSON-RPC error -32602', async () => {
  try {
    const r = await client.callTool({ name: 'no_such_tool', arguments: {} });
    return { ok: false, diag: { resolved: r } };
  } catch (e) {
    return { ok: e instanceof McpError && e.code === -32602, diag: { code: e.code, message: e.message } };
  }
});

await check('cancel: an aborted sleep(30) rejects within 3 s', async () => {
  const ac = new AbortController();
  const call = client.callTool({ name: 'sleep', arguments: { seconds: 30 } }, undefined, { signal: ac.signal, timeout: 60000 });
  await new Promise((r) => setTimeout(r, 300));
  const t0 = Date.now();
  ac.abort('test cancels');
  try {
    const r = await call;
    return { ok: false, diag: { resolved: r } };
  } catch {
    const ms = Date.now() - t0;
    return { ok: ms < 3000, diag: { ms } };
  }
});

await check('cancel: the server keeps serving (ping after it)', async () => {
  const t0 = Date.now();
  await client.ping();
  return { ok: Date.now() - t0 < 3000 };
});

await check('cancel: a call after the cancelled one answers', async () => {
  const r = await client.callTool({ name: 'get_current_time', arguments: { timezone: 'Europe/Berlin' } });
  return { ok: !r.isError && r.structuredContent.timezone === 'Europe/Berlin', diag: r };
});

// sleep reports progress after each whole second. The SDK handles a
// notification a microtask after a response that came in the same read, so
// progress sent just before the answer reaches onprogress too late (and the
// client reports "unknown token"): ask for 2.5 s and expect the first two.
await check('progress: sleep(2.5) with onprogress reports increasing progress', async () => {
  const seen = [];
  const r = await client.callTool({ name: 'sleep', arguments: { seconds: 2.5 } }, undefined, {
    onprogress: (p) => seen.push(p),
    timeout: 30000,
  });
  if (r.isError)
    return { ok: false, diag: r };
  if (seen.length === 0)
    return { skip: 'the server sent no progress for sleep' };
  const increasing = seen.every((p, i) => i === 0 || p.progress > seen[i - 1].progress);
  return { ok: increasing && seen.length >= 2, diag: seen };
});

await check('concurrency: a ping answers while a sleep runs', async () => {
  const slow = client.callTool({ name: 'sleep', arguments: { seconds: 1 } });
  const t0 = Date.now();
  await client.ping();
  const pingMs = Date.now() - t0;
  const r = await slow;
  return { ok: pingMs < 500 && !r.isError, diag: { pingMs, r } };
});

const lateProgress = (e) => e.includes('progress notification for an unknown token');
await check('the client saw no protocol errors (nothing but MCP on stdout, no stray answers)', async () => {
  await new Promise((r) => setTimeout(r, 200));
  const errs = clientErrors.filter((e) => !lateProgress(e));
  return { ok: errs.length === 0, diag: errs.join('\n') };
});

await check('progress: no notification reaches the client together with or after its answer', async () => {
  const errs = clientErrors.filter(lateProgress);
  return { ok: errs.length === 0, diag: errs.join('\n') };
});

await check('close: rig exits 0 on end of input, before the SDK resorts to SIGTERM', async () => {
  // _process is the transport's own; the SDK offers no public exit status.
  const proc = transport._process;
  const exited = proc ? new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal }))) : null;
  const t0 = Date.now();
  await client.close();
  const ms = Date.now() - t0;
  const st = exited ? await exited : { code: 0, signal: null };
  return { ok: st.code === 0 && st.signal === null && ms < 2000, diag: { ...st, ms, stderr: stderr.join('') } };
});

// ---- the client's roots (sdk_roots.mjs): one rig serve per client ---------------

await rootsChecks(check, async (args) => {
  const errs = [];
  let t = null;
  let cl = null;
  let exited = null;
  return {
    connect: async (client) => {
      t = new StdioClientTransport({ command: rig, args: ['serve', ...args], stderr: 'pipe' });
      t.stderr?.on('data', (d) => errs.push(String(d)));
      cl = client;
      await client.connect(t);
      const proc = t._process; // the transport's own; the SDK offers no exit status
      exited = proc ? new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal }))) : null;
    },
    stop: async () => {
      await cl?.close().catch(() => {});
      const st = exited ? await exited : { code: 0, signal: null };
      return { ok: st.code === 0 && st.signal === null, diag: { ...st, stderr: errs.join('') } };
    },
  };
}, 'stdio');

// ---- examples/conformance_server over stdio: server-to-client requests ----------

const ASK_CHECKS = [
  'stdio: conformance_server initializes a client declaring elicitation and sampling',
  'stdio: elicitation/create reaches the client, the accepted answer reaches the tool',
  'stdio: a declined elicitation reaches the tool as action=decline',
  'stdio: sampling/createMessage reaches the client, its reply reaches the tool',
  'stdio: no protocol errors on the asking client',
  'stdio: conformance_server exits 0 on end of input',
];
if (!example || !existsSync(example)) {
  for (const name of ASK_CHECKS)
    skip(name, `examples/conformance_server not built (${example || 'no path given'})`);
} else {
  const cstderr = [];
  const ct = new StdioClientTransport({ command: example, args: [], stderr: 'pipe' });
  ct.stderr?.on('data', (d) => cstderr.push(String(d)));
  const c = await askChecks(check, (cl) => cl.connect(ct), 'stdio');
  await check('stdio: conformance_server exits 0 on end of input', async () => {
    const proc = ct._process;
    const exited = proc ? new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal }))) : null;
    await c.close();
    const st = exited ? await exited : { code: 0, signal: null };
    return { ok: st.code === 0 && st.signal === null, diag: { ...st, stderr: cstderr.join('') } };
  });
}

done();
