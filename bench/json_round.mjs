// json_round.mjs — the Node (V8) peer of bench_json: the same tools/call
// round, and when bench_json dumped its inputs, the same parse and writer
// throughput, printed in the same format.
//
//   node bench/json_round.mjs [DIR] [--runs N]
//
// DIR is what `bench_json --dump DIR` wrote (bench/run.sh does both): the
// requests and reply text, rig's replies (to check Node's byte for byte), the
// three documents, the source text, and rig.json, rig's figures from that run,
// for the "vs rig" columns. Without DIR only the round runs, on the same
// request built in here.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let dir = null;
let runs = 0;
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--runs' && i + 1 < process.argv.length) runs = Number(process.argv[++i]);
  else if (a === '--only' && i + 1 < process.argv.length) i++; // bench_json's option: ignored
  else if (!a.startsWith('--') && dir === null) dir = a;
  else {
    console.error('usage: node json_round.mjs [DIR] [--runs N]');
    process.exit(2);
  }
}

const file = (name) => (dir && existsSync(join(dir, name)) ? join(dir, name) : null);
const rigFile = file('rig.json');
const rig = rigFile ? JSON.parse(readFileSync(rigFile, 'utf8')) : null;
if (!runs) runs = rig ? rig.runs : 7;
const MB = 1e6;

let sink = 0; // checksum of outputs, printed at the end

const now = () => Number(process.hrtime.bigint()) / 1e9;
// CPU time of the process (all its threads: V8's GC and compiler threads too)
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Same harness as bench_json: warm up and size each contestant's runs to about
// target seconds, then run the contestants in turns; median of the runs.
function race(cs, target, minReps, maxReps) {
  for (const c of cs) {
    let reps = 1, t;
    for (;;) {
      const t0 = now();
      c.fn(reps);
      t = now() - t0;
      if (t >= 0.05 || reps >= maxReps) break;
      reps = Math.min(reps * 4, maxReps);
    }
    c.reps = Math.min(maxReps, Math.max(minReps, Math.floor(target / (t / reps))));
    c.t = [];
    c.ct = [];
  }
  for (let r = 0; r < runs; r++) {
    for (const c of cs) {
      const c0 = cpu(), t0 = now();
      c.fn(c.reps);
      const t = now() - t0;
      c.t.push(t / c.reps);
      c.ct.push((cpu() - c0) / c.reps);
    }
  }
  for (const c of cs) {
    c.min = Math.min(...c.t);
    c.max = Math.max(...c.t);
    c.med = median(c.t);
    c.cmed = median(c.ct);
  }
}

const f0 = (x) => x.toFixed(0);
const f1 = (x) => x.toFixed(1);

console.log('# Node peer (V8)\n');
console.log('| | |\n|---|---|');
console.log(`| node | ${process.version} (V8 ${process.versions.v8}) |`);
console.log(`| method | median of ${runs} runs; "vs rig" uses rig's figures from the bench_json run just before; CPU time is the whole process's (V8's GC and compiler threads included) |\n`);

// ------------------------------------------------------------ a. the round

let requests, text, expected = null;
if (file('requests.ndjson')) {
  requests = readFileSync(file('requests.ndjson'), 'utf8').split('\n').filter((l) => l.length);
  text = readFileSync(file('reply_text.txt'), 'utf8');
  if (file('replies.ndjson'))
    expected = readFileSync(file('replies.ndjson'), 'utf8').split('\n').filter((l) => l.length);
} else {
  requests = [];
  for (let k = 0; k < 16; k++)
    requests.push(`{"jsonrpc":"2.0","id":${42 + k},"method":"tools/call","params":{"name":"read_file","arguments":{"path":"src/main.c","offset":120,"limit":40},"_meta":{"progressToken":"t-${42 + k}"}}}`);
  text = '120:\tprintf("read %zu bytes from %s\\n", n, path);\n121:\treturn n > 0 ? 0 : -1; /* done */';
}
const requestBufs = requests.map((s) => Buffer.from(s, 'utf8'));

// One message: parse, read id, method, params.name, params.arguments, reply.
function roundOne(msg) {
  const req = JSON.parse(msg);
  if (req.method !== 'tools/call') throw new Error('not a tools/call');
  const params = req.params;
  const name = params.name;
  if (name !== 'read_file') throw new Error('unexpected tool');
  const args = params.arguments;
  const path = args.path, offset = args.offset, limit = args.limit;
  if (typeof path !== 'string' || !Number.isInteger(offset) || !Number.isInteger(limit))
    throw new Error('bad arguments');
  sink += name.length + path.length + offset + limit;
  return JSON.stringify({
    jsonrpc: '2.0',
    id: req.id,
    result: { content: [{ type: 'text', text }], isError: false },
  });
}

let mismatches = 0;
for (let k = 0; k < requests.length; k++) {
  const out = roundOne(requests[k]);
  if (expected && out !== expected[k] && !mismatches++)
    console.error(`reply ${k} differs:\n rig:  ${expected[k]}\n node: ${out}`);
}

const n = requests.length;
const round = [
  {
    name: 'node JSON (JS string in and out)',
    fn: (reps) => {
      for (let r = 0, k = 0; r < reps; r++) {
        const out = roundOne(requests[k]);
        sink += out.length + out.charCodeAt(out.length >> 1);
        if (++k === n) k = 0;
      }
    },
  },
  {
    name: 'node JSON (UTF-8 bytes in and out)',
    fn: (reps) => {
      for (let r = 0, k = 0; r < reps; r++) {
        const out = Buffer.from(roundOne(requestBufs[k].toString('utf8')), 'utf8');
        sink += out.length + out[out.length >> 1];
        if (++k === n) k = 0;
      }
    },
  },
];
race(round, 0.3, 20000, 1000000);
console.log('## a. JSON-RPC tools/call round (Node)\n');
console.log(`Same requests and reply as bench_json. Replies byte-identical to rig's: ${
  expected ? (mismatches ? '**NO** (see stderr)' : 'yes') : 'not checked (no DIR)'}.\n`);
console.log('| peer | ns/message (median) | min - max | CPU ns/message (median) | messages/run | time vs rig (wall, CPU) |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const c of round)
  console.log(`| ${c.name} | ${f0(c.med * 1e9)} | ${f0(c.min * 1e9)} - ${f0(c.max * 1e9)} | ${f0(c.cmed * 1e9)} | ${c.reps} | ${
    rig ? f1((c.med * 1e9) / rig.round_ns) + 'x, ' + f1((c.cmed * 1e9) / rig.round_cpu_ns) + 'x' : 'n/a'} |`);
console.log('');

// ------------------------------------------------------------ b. parsing

function walk(v, t) {
  t.values++;
  if (typeof v === 'number') {
    t.numbers++;
    t.numsum += v;
  } else if (typeof v === 'string') {
    t.strings++;
    t.str_bytes += Buffer.byteLength(v, 'utf8');
  } else if (Array.isArray(v)) {
    for (const e of v) walk(e, t);
  } else if (v !== null && typeof v === 'object') {
    for (const k of Object.keys(v)) {
      t.keys++;
      walk(v[k], t);
    }
  }
}

const same = (a, b) =>
  a.values === b.values && a.keys === b.keys && a.strings === b.strings &&
  a.str_bytes === b.str_bytes && a.numbers === b.numbers && a.numsum === b.numsum;

const docNames = ['records', 'strings', 'numbers'];
if (docNames.every((d) => file(`${d}.json`))) {
  console.log('## b. Parse throughput (Node)\n');
  console.log('JSON.parse of a JS string already decoded from UTF-8, and the same including the ' +
    'decode from the file\'s bytes (what a server reading a socket pays). MB/s = 10^6 input bytes per second.\n');
  const rows = [];
  const checks = [];
  for (const d of docNames) {
    const bytes = readFileSync(file(`${d}.json`));
    const str = bytes.toString('utf8');
    const t = { values: 0, keys: 0, strings: 0, str_bytes: 0, numbers: 0, numsum: 0 };
    walk(JSON.parse(str), t);
    const want = rig && rig.parse[d] ? rig.parse[d].tally : null;
    checks.push(`${d}: ${t.values} values, ${t.keys} keys, ${t.strings} strings (${t.str_bytes} bytes), ` +
      `${t.numbers} numbers (sum ${t.numsum}) — ${want ? (same(t, want) ? 'same as rig' : 'MISMATCH with rig') : 'not checked'}`);
    const cs = [
      { name: 'JSON.parse', fn: (reps) => { for (let r = 0; r < reps; r++) sink += JSON.parse(str).length; } },
      { name: '+ decode', fn: (reps) => { for (let r = 0; r < reps; r++) sink += JSON.parse(bytes.toString('utf8')).length; } },
    ];
    race(cs, 0.2, 1, 1000);
    const mb = bytes.length / MB;
    const rp = rig && rig.parse[d] ? rig.parse[d] : null;
    rows.push(`| ${d} | ${f1(mb)} MB | ${f0(mb / cs[0].med)} (${f0(mb / cs[0].cmed)}) | ${f0(mb / cs[1].med)} (${f0(mb / cs[1].cmed)}) | ${
      rp ? f0(rp.mbps_fresh) + ' (' + f0(rp.cpu_mbps_fresh) + ')' : 'n/a'} | ${
      rp ? f1(rp.mbps_fresh / (mb / cs[0].med)) + 'x (' + f1(rp.cpu_mbps_fresh / (mb / cs[0].cmed)) + 'x)' : 'n/a'} |`);
  }
  console.log('Sanity check:\n\n```\n' + checks.join('\n') + '\n```\n');
  console.log('Each cell: wall clock (CPU time).\n');
  console.log('| document | size | JSON.parse MB/s | incl. UTF-8 decode MB/s | rig fresh MB/s | rig / JSON.parse |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) console.log(r);
  console.log('');
}

// ------------------------------------------------------------ c. writing

if (file('source.txt')) {
  const src = readFileSync(file('source.txt'));
  const s = src.toString('utf8');
  const out = JSON.stringify(s);
  const outBytes = Buffer.byteLength(out, 'utf8');
  const back = JSON.parse(out) === s;
  const cs = [
    { name: 'JSON.stringify (JS string out)', fn: (reps) => { for (let r = 0; r < reps; r++) sink += JSON.stringify(s).length; } },
    { name: 'JSON.stringify + UTF-8 encode', fn: (reps) => { for (let r = 0; r < reps; r++) sink += Buffer.from(JSON.stringify(s), 'utf8').length; } },
  ];
  race(cs, 0.2, 1, 1000);
  const mb = src.length / MB;
  console.log('## c. Writer throughput (Node)\n');
  console.log(`JSON.stringify of the same ${f1(mb)} MB text (a JS string). Output ${outBytes} bytes ` +
    `(rig: ${rig ? rig.write_out_len : 'n/a'}), parses back to the input: ${back ? 'yes' : '**no**'}.\n`);
  console.log('| peer | MB/s (median) | min - max | CPU-time MB/s (median) | rig reused / peer (wall, CPU) |');
  console.log('|---|---:|---:|---:|---:|');
  for (const c of cs)
    console.log(`| ${c.name} | ${f0(mb / c.med)} | ${f0(mb / c.max)} - ${f0(mb / c.min)} | ${f0(mb / c.cmed)} | ${
      rig ? f1(rig.write_mbps / (mb / c.med)) + 'x, ' + f1(rig.write_cpu_mbps / (mb / c.cmed)) + 'x' : 'n/a'} |`);
  console.log('');
}

console.log(`Checksum of outputs: ${sink}`);
