// dispatch_peer.mjs — the Node peer of bench_dispatch: the same tool call
// with Ajv (JSON Schema validator, compiled to JavaScript) doing the
// validation, printed beside rig's figures.
//
//   node bench/dispatch_peer.mjs DIR [--runs N]
//
// DIR is what `bench_dispatch --dump DIR` wrote (bench/run.sh does both):
// the schema, the argument texts, the expected result texts, and rig's
// figures from that run. Ajv comes from bench/node_modules
// (bench/install-peers.sh). The work per call mirrors rig's:
//
//   a. validate(args) on an object parsed once;
//   b. JSON.parse(text), look the tool up in a Map, validate, call the tool
//      function, which reads path, count and mode and returns
//      {content:[{type:"text",text}],isError:false};
//   c. (b) done by a worker thread: postMessage to it and await its reply,
//      one call at a time (what a Node server does to keep its event loop
//      free);
//   d. (b) with count sent as "42" and mode left out: Ajv's coerceTypes and
//      useDefaults (on in every case, as rig's coercion and defaults are).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import Ajv from 'ajv';

// The tool and its table: shared by the main thread and the worker.
function makeTools(schema) {
  const ajv = new Ajv({ coerceTypes: true, useDefaults: true });
  const validate = ajv.compile(schema);
  const readLines = (args) => ({
    content: [{ type: 'text', text: `read ${args.count} lines of ${args.path} (${args.mode})` }],
    isError: false,
  });
  return { validate, tools: new Map([['read_lines', { validate, fn: readLines }]]) };
}

function call(tools, name, text) {
  const t = tools.get(name);
  if (!t) throw new Error(`Tool '${name}' not found`);
  const args = JSON.parse(text);
  if (!t.validate(args)) throw new Error(`Error validating tool '${name}'`);
  return t.fn(args);
}

if (!isMainThread) {
  const { tools } = makeTools(workerData.schema);
  parentPort.on('message', (text) => parentPort.postMessage(call(tools, 'read_lines', text)));
} else {
  await main();
}

async function main() {
  let dir = null;
  let runs = 0;
  for (let i = 2; i < process.argv.length; i++) {
    const a = process.argv[i];
    if (a === '--runs' && i + 1 < process.argv.length) runs = Number(process.argv[++i]);
    else if (a === '--only' && i + 1 < process.argv.length) i++; // run.sh's option: ignored
    else if (!a.startsWith('--') && dir === null) dir = a;
    else {
      console.error('usage: node dispatch_peer.mjs DIR [--runs N]');
      process.exit(2);
    }
  }
  if (!dir) {
    console.error('dispatch_peer.mjs: needs the DIR bench_dispatch --dump wrote');
    process.exit(2);
  }
  const inp = JSON.parse(readFileSync(join(dir, 'dispatch.json'), 'utf8'));
  if (!runs) runs = inp.runs;
  const schema = JSON.parse(inp.schema);
  const { validate, tools } = makeTools(schema);

  let sink = 0;
  const now = () => Number(process.hrtime.bigint()) / 1e9;
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  const median = (v) => {
    const s = [...v].sort((a, b) => a - b);
    return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };

  // bench_dispatch's harness: warm up, size runs to about target seconds,
  // contestants in turns, median of the runs. fn may be async.
  async function race(cs, target, minReps, maxReps) {
    for (const c of cs) {
      let reps = 1, t;
      for (;;) {
        const t0 = now();
        await c.fn(reps);
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
        await c.fn(c.reps);
        c.t.push((now() - t0) / c.reps);
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

  // The worker for (c), and one call through it.
  const worker = new Worker(new URL(import.meta.url), { workerData: { schema } });
  let pending = null;
  worker.on('message', (res) => pending(res));
  worker.on('error', (e) => {
    console.error(e);
    process.exit(1);
  });
  const viaWorker = (text) =>
    new Promise((resolve) => {
      pending = resolve;
      worker.postMessage(text);
    });

  // Checks, outside the timing.
  const parsed = JSON.parse(inp.args);
  const textOf = (r) => r.content[0].text;
  const checks = [
    [textOf(call(tools, 'read_lines', inp.args)), inp.want],
    [textOf(await viaWorker(inp.args)), inp.want],
    [textOf(call(tools, 'read_lines', inp.args_coerce)), inp.want_coerce],
  ];
  for (const [got, want] of checks)
    if (got !== want) throw new Error(`result "${got}", want "${want}"`);
  if (!validate(parsed)) throw new Error('the arguments should be valid');

  const cs = [
    {
      key: 'validate',
      name: 'a. Ajv validate alone (parsed arguments)',
      fn: (n) => {
        for (let i = 0; i < n; i++) sink += validate(parsed) ? 1 : 0;
      },
    },
    {
      key: 'call_inline',
      name: 'b. JSON.parse + Map lookup + validate + tool function',
      fn: (n) => {
        for (let i = 0; i < n; i++) sink += call(tools, 'read_lines', inp.args).content[0].text.length;
      },
    },
    {
      key: 'call_pool',
      name: 'c. (b) on a worker thread (postMessage and back)',
      fn: async (n) => {
        for (let i = 0; i < n; i++) sink += (await viaWorker(inp.args)).content[0].text.length;
      },
    },
    {
      key: 'call_coerce',
      name: 'd. (b) with coercion + default (coerceTypes, useDefaults)',
      fn: (n) => {
        for (let i = 0; i < n; i++)
          sink += call(tools, 'read_lines', inp.args_coerce).content[0].text.length;
      },
    },
  ];
  await race(cs, 0.3, 2000, 5000000);
  await worker.terminate();

  const f0 = (x) => x.toFixed(0);
  const f1 = (x) => x.toFixed(1);
  const ajvVersion = JSON.parse(
    readFileSync(new URL('./node_modules/ajv/package.json', import.meta.url), 'utf8'),
  ).version;
  console.log('## Node peer: Ajv\n');
  console.log('| | |\n|---|---|');
  console.log(`| node | ${process.version} (V8 ${process.versions.v8}) |`);
  console.log(`| ajv | ${ajvVersion} (npm, bench/node_modules), coerceTypes + useDefaults |`);
  console.log(`| method | median of ${runs} runs, contestants in turns; "rig" columns are bench_dispatch's figures from the run just before; CPU time is the whole process's (V8's GC and compiler threads, and for c the worker, included) |\n`);
  console.log('| Node + Ajv | ns/call (median) | min - max | CPU ns/call (median) | calls/run | rig ns/call | Node/rig (wall, CPU) |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const c of cs) {
    const r = inp.rig_ns[c.key], rc = inp.rig_cpu_ns[c.key];
    console.log(`| ${c.name} | ${f0(c.med * 1e9)} | ${f0(c.min * 1e9)} - ${f0(c.max * 1e9)} | ${f0(c.cmed * 1e9)} | ${c.reps} | ${f0(r)} | ${f1((c.med * 1e9) / r)}x, ${f1((c.cmed * 1e9) / rc)}x |`);
  }
  console.log(`\nNode/rig above 1: rig is faster. Checksum ${sink}.`);
}
