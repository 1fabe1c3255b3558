// sdk_http.mjs RIG [CONFORMANCE_SERVER] — `rig serve --http` against the
// official MCP TypeScript SDK's Streamable HTTP client: a client nobody here
// wrote. TAP output; exits non-zero when a check fails.
//
// Starts `RIG serve --http 127.0.0.1:0` (the port from the URL it prints on
// stdout), connects StreamableHTTPClientTransport clients to it, lists and
// calls tools, asks for progress, cancels a call through an AbortSignal,
// runs calls concurrently on one session, ends a session with DELETE, then
// does the same handshake against `--token secret`. With CONFORMANCE_SERVER
// (examples/conformance_server) it also answers elicitation/create and
// sampling/createMessage that a tool sends (sdk_ask.mjs); without it those
// checks are skipped. A client's roots replacing --root for the file tools,
// per session, are checked in sdk_roots.mjs.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { askChecks } from './sdk_ask.mjs';
import { rootsChecks } from './sdk_roots.mjs';
import { ok, done, textOf, skip } from './harness.mjs';

const rig = process.argv[2];
const example = process.argv[3];
if (!rig) {
  console.error('usage: node sdk_http.mjs RIG [CONFORMANCE_SERVER]');
  process.exit(2);
}

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
const sleepMs = (ms) => new Promise((r) => setTimeout(r, ms));
const within = (p, ms, what) => Promise.race([p, sleepMs(ms).then(() => { throw new Error(`${what}: no answer within ${ms} ms`); })]);

// Starts a server that prints http://127.0.0.1:PORT/mcp once it listens
// (on `stream`, or on either stream when it is null).
function startServer(bin, args, stream) {
  const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const srv = { proc, out: '', err: '', url: null };
  srv.exited = new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal })));
  srv.ready = new Promise((resolve, reject) => {
    const re = /http:\/\/127\.0\.0\.1:(\d+)\/mcp/;
    const timer = setTimeout(() => reject(new Error('no URL within 10 s')), 10000);
    const look = () => {
      const m = stream === 'stdout' ? re.exec(srv.out) : re.exec(srv.out) || re.exec(srv.err);
      if (m && !srv.url) {
        clearTimeout(timer);
        srv.url = new URL(m[0]);
        resolve(srv);
      }
    };
    proc.stdout.on('data', (d) => { srv.out += d; look(); });
    proc.stderr.on('data', (d) => { srv.err += d; look(); });
    proc.once('error', (e) => { clearTimeout(timer); reject(e); });
    srv.exited.then((st) => { clearTimeout(timer); reject(new Error(`exited before listening: ${JSON.stringify(st)}`)); });
  });
  return srv;
}
// SIGTERM, then the exit status within 5 s (SIGKILL after that).
async function stopServer(srv) {
  const t0 = Date.now();
  srv.proc.kill('SIGTERM');
  const st = await Promise.race([srv.exited, sleepMs(5000).then(() => null)]);
  if (!st) {
    srv.proc.kill('SIGKILL');
    return { ok: false, diag: { error: 'still running 5 s after SIGTERM', stderr: srv.err } };
  }
  return { ok: st.code === 0 && st.signal === null, diag: { ...st, ms: Date.now() - t0, stderr: srv.err } };
}
function newClient(name) {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  client.errors = [];
  client.onerror = (e) => client.errors.push(String(e && e.message ? e.message : e));
  return client;
}
const lateProgress = (e) => e.includes('progress notification for an unknown token');

// ---- rig serve --http 127.0.0.1:0 ------------------------------------------------

const srv = startServer(rig, ['serve', '--http', '127.0.0.1:0'], 'stdout');
let up = false;
await check('rig serve --http 127.0.0.1:0 prints its URL on stdout', async () => {
  await srv.ready;
  up = true;
  return { ok: srv.url.port !== '0', diag: srv.out };
});
if (!up) {
  console.log(`Bail out! rig serve --http did not start: ${srv.err.replace(/\n/g, ' ')}`);
  srv.proc.kill('SIGKILL');
  process.exit(1);
}
const url = srv.url;

const transport = new StreamableHTTPClientTransport(url);
const client = newClient('rig-sdk-http');
let connected = false;
await check('initialize over HTTP: protocolVersion 2025-11-25, serverInfo.name "rig", a session id', async () => {
  await within(client.connect(transport), 10000, 'connect');
  connected = true;
  const info = client.getServerVersion();
  return {
    ok: info && info.name === 'rig' && transport.protocolVersion === '2025-11-25' &&
      typeof transport.sessionId === 'string' && transport.sessionId.length > 0,
    diag: { serverInfo: info, protocolVersion: transport.protocolVersion, sessionId: transport.sessionId },
  };
});
const needs = (fn) => async () => (connected ? fn() : { ok: false, diag: 'not connected' });

await check('tools/list: the built-ins and file tools, each with an object inputSchema', needs(async () => {
  const tools = (await client.listTools()).tools;
  const names = tools.map((t) => t.name);
  const bad = BUILTINS.filter((b) => {
    const t = tools.find((x) => x.name === b);
    return !t || !t.inputSchema || t.inputSchema.type !== 'object';
  });
  return { ok: bad.length === 0, diag: { missing_or_bad: bad, names } };
}));

await check('tools/call get_current_time {timezone:"UTC"}: structuredContent.timezone is UTC', needs(async () => {
  const r = await client.callTool({ name: 'get_current_time', arguments: { timezone: 'UTC' } });
  return { ok: !r.isError && r.structuredContent && r.structuredContent.timezone === 'UTC', diag: r };
}));

await check('tools/call with bad arguments: an isError result that names the tool', needs(async () => {
  const r = await client.callTool({ name: 'sleep', arguments: { seconds: 'soon' } });
  return { ok: r.isError === true && textOf(r).includes('sleep'), diag: r };
}));

await check('tools/call of an unknown tool: JSON-RPC error -32602', needs(async () => {
  try {
    const r = await client.callTool({ name: 'no_such_tool', arguments: {} });
    return { ok: false, diag: { resolved: r } };
  } catch (e) {
    return { ok: e instanceof McpError && e.code === -32602, diag: { code: e.code, message: e.message } };
  }
}));

await check('progress: sleep(3) with onprogress reports increasing progress before its result', needs(async () => {
  const seen = [];
  let atResult = -1;
  const r = await client.callTool({ name: 'sleep', arguments: { seconds: 3 } }, undefined, {
    onprogress: (p) => seen.push(p),
    timeout: 30000,
  }).then((x) => { atResult = seen.length; return x; });
  const increasing = seen.every((p, i) => i === 0 || p.progress > seen[i - 1].progress);
  return { ok: !r.isError && atResult >= 1 && increasing, diag: { seen, atResult, r } };
}));

await check('cancel: sleep(30) aborted after 500 ms rejects within 3 s', needs(async () => {
  const ac = new AbortController();
  const call = client.callTool({ name: 'sleep', arguments: { seconds: 30 } }, undefined, { signal: ac.signal, timeout: 60000 });
  await sleepMs(500);
  const t0 = Date.now();
  ac.abort('test cancels');
  try {
    const r = await within(call, 10000, 'cancelled call');
    return { ok: false, diag: { resolved: r } };
  } catch (e) {
    const ms = Date.now() - t0;
    return { ok: ms < 3000 && !String(e.message).includes('no answer within'), diag: { ms, error: String(e) } };
  }
}));

await check('cancel: the server keeps serving (a call after the cancelled one answers)', needs(async () => {
  const t0 = Date.now();
  const r = await within(client.callTool({ name: 'get_current_time', arguments: { timezone: 'Europe/Berlin' } }), 5000, 'call');
  const ms = Date.now() - t0;
  return { ok: !r.isError && r.structuredContent.timezone === 'Europe/Berlin' && ms < 3000, diag: { ms, r } };
}));

await check('concurrency: 8 calls at once on one session all answer, each with its own result', needs(async () => {
  const zones = ['UTC', 'Europe/Berlin', 'Asia/Tokyo', 'America/New_York', 'Australia/Sydney', 'Europe/London'];
  const t0 = Date.now();
  const calls = [
    ...zones.map((tz) => client.callTool({ name: 'get_current_time', arguments: { timezone: tz } })),
    client.callTool({ name: 'sleep', arguments: { seconds: 1 } }),
    client.callTool({ name: 'sleep', arguments: { seconds: 1 } }),
  ];
  const rs = await within(Promise.all(calls), 15000, 'concurrent calls');
  const ms = Date.now() - t0;
  const wrong = zones.filter((tz, i) => rs[i].isError || rs[i].structuredContent.timezone !== tz);
  const sleepsOk = !rs[6].isError && !rs[7].isError;
  return { ok: wrong.length === 0 && sleepsOk, diag: { wrong, ms, rs } };
}));

await check('concurrency: a ping answers while a sleep runs', needs(async () => {
  const slow = client.callTool({ name: 'sleep', arguments: { seconds: 1 } });
  const t0 = Date.now();
  await client.ping();
  const pingMs = Date.now() - t0;
  const r = await slow;
  return { ok: pingMs < 500 && !r.isError, diag: { pingMs, r } };
}));

// A second client: its own session.
const transport2 = new StreamableHTTPClientTransport(url);
const client2 = newClient('rig-sdk-http-2');
let connected2 = false;
await check('a second client gets a different session and is served', async () => {
  await within(client2.connect(transport2), 10000, 'connect');
  connected2 = true;
  const r = await client2.callTool({ name: 'get_current_time', arguments: { timezone: 'UTC' } });
  return {
    ok: typeof transport2.sessionId === 'string' && transport2.sessionId.length > 0 &&
      transport2.sessionId !== transport.sessionId && !r.isError,
    diag: { first: transport.sessionId, second: transport2.sessionId, r },
  };
});

await check('the first client saw no protocol errors', needs(async () => {
  await sleepMs(200);
  const errs = client.errors.filter((e) => !lateProgress(e));
  return { ok: errs.length === 0, diag: errs.join('\n') };
}));

await check('progress: no notification reaches the client after its answer', needs(async () => {
  const errs = client.errors.filter(lateProgress);
  return { ok: errs.length === 0, diag: errs.join('\n') };
}));

await check('terminateSession (DELETE), then a request with that session id gets 404', needs(async () => {
  const sid = transport.sessionId;
  const version = transport.protocolVersion;
  await transport.terminateSession();
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sid,
      'mcp-protocol-version': version,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
  });
  const body = await res.text();
  return { ok: res.status === 404 && transport.sessionId === undefined, diag: { status: res.status, body, sid } };
}));

await check('the second session still works after the first ended', async () => {
  if (!connected2)
    return { ok: false, diag: 'second client not connected' };
  const r = await within(client2.callTool({ name: 'get_current_time', arguments: { timezone: 'Asia/Tokyo' } }), 5000, 'call');
  return { ok: !r.isError && r.structuredContent.timezone === 'Asia/Tokyo' && client2.errors.length === 0, diag: { r, errors: client2.errors } };
});

await client.close().catch(() => {});
await client2.close().catch(() => {});
await check('rig serve --http exits 0 on SIGTERM', async () => stopServer(srv));

// ---- rig serve --http 127.0.0.1:0 --token secret ---------------------------------

const tsrv = startServer(rig, ['serve', '--http', '127.0.0.1:0', '--token', 'secret'], 'stdout');
let tup = false;
await check('rig serve --http --token secret starts', async () => {
  await tsrv.ready;
  tup = true;
  return true;
});
if (tup) {
  await check('--token: connecting without the token fails with 401', async () => {
    const c = newClient('rig-sdk-http-notoken');
    try {
      await within(c.connect(new StreamableHTTPClientTransport(tsrv.url)), 10000, 'connect');
      await c.close().catch(() => {});
      return { ok: false, diag: 'connected without a token' };
    } catch (e) {
      return { ok: e && e.code === 401, diag: { code: e && e.code, message: String(e && e.message) } };
    }
  });

  await check('--token: connecting with a wrong token fails with 401', async () => {
    const c = newClient('rig-sdk-http-badtoken');
    const t = new StreamableHTTPClientTransport(tsrv.url, { requestInit: { headers: { Authorization: 'Bearer wrong' } } });
    try {
      await within(c.connect(t), 10000, 'connect');
      await c.close().catch(() => {});
      return { ok: false, diag: 'connected with a wrong token' };
    } catch (e) {
      return { ok: e && e.code === 401, diag: { code: e && e.code, message: String(e && e.message) } };
    }
  });

  await check('--token: with Authorization: Bearer secret it connects and calls a tool', async () => {
    const c = newClient('rig-sdk-http-token');
    const t = new StreamableHTTPClientTransport(tsrv.url, { requestInit: { headers: { Authorization: 'Bearer secret' } } });
    await within(c.connect(t), 10000, 'connect');
    const r = await c.callTool({ name: 'get_current_time', arguments: { timezone: 'UTC' } });
    const errors = [...c.errors]; // before close(), whose aborts land in onerror too
    await c.close().catch(() => {});
    return {
      ok: c.getServerVersion().name === 'rig' && !r.isError && r.structuredContent.timezone === 'UTC' && errors.length === 0,
      diag: { r, errors },
    };
  });
} else {
  tsrv.proc.kill('SIGKILL');
}
await check('rig serve --http --token exits 0 on SIGTERM', async () => (tup ? stopServer(tsrv) : { ok: false, diag: tsrv.err }));

// ---- the client's roots (sdk_roots.mjs): several sessions on one server ---------

await rootsChecks(check, async (args) => {
  const rsrv = startServer(rig, ['serve', '--http', '127.0.0.1:0', ...args], 'stdout');
  await rsrv.ready;
  return {
    connect: (client) => within(client.connect(new StreamableHTTPClientTransport(rsrv.url)), 10000, 'connect'),
    stop: () => stopServer(rsrv),
  };
}, 'HTTP', { sessions: true });

// ---- examples/conformance_server --http: server-to-client requests ---------------

const ASK_CHECKS = [
  'HTTP: conformance_server initializes a client declaring elicitation and sampling',
  'HTTP: elicitation/create reaches the client, the accepted answer reaches the tool',
  'HTTP: a declined elicitation reaches the tool as action=decline',
  'HTTP: sampling/createMessage reaches the client, its reply reaches the tool',
  'HTTP: no protocol errors on the asking client',
  'HTTP: conformance_server exits 0 on SIGTERM',
];
if (!example || !existsSync(example)) {
  for (const name of ASK_CHECKS)
    skip(name, `examples/conformance_server not built (${example || 'no path given'})`);
} else {
  const csrv = startServer(example, ['--http', '127.0.0.1:0'], null);
  let cup = false;
  try {
    await csrv.ready;
    cup = true;
  } catch (e) {
    ok(false, 'HTTP: conformance_server --http 127.0.0.1:0 starts', { error: String(e), stderr: csrv.err });
  }
  if (cup) {
    const c = await askChecks(check, (cl) => within(cl.connect(new StreamableHTTPClientTransport(csrv.url)), 10000, 'connect'), 'HTTP');
    await c.close().catch(() => {});
    await check('HTTP: conformance_server exits 0 on SIGTERM', async () => stopServer(csrv));
  }
}

done();
