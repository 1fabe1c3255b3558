// sdk_env_tools.mjs RIG TASKS_JSON — an agent's whole episode on
// examples/tasks.json with the official MCP TypeScript SDK as its tool
// client: a client nobody here wrote. TAP output; exits non-zero when a
// check fails.
//
// Starts `RIG env serve TASKS_JSON --port 0`, starts fix-bug over the
// control channel (newline-delimited JSON-RPC on TCP), connects a
// StreamableHTTPClientTransport to the "tools" binding of the start result
// with its bearer token, and then does what an agent would: lists the
// tools, greps for the bug, reads the file, fixes it with edit_file and runs
// `make test` with shell — all with paths relative to the session's
// workspace — and grades over the control channel: score 1 with three
// subscores. Without a token, or with a wrong one, the tools answer 401; a
// second session's token sees its own, unfixed workspace.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ok, done, textOf } from './harness.mjs';

const rig = process.argv[2];
const tasksJson = process.argv[3];
if (!rig || !tasksJson) {
  console.error('usage: node sdk_env_tools.mjs RIG TASKS_JSON');
  process.exit(2);
}

// Runs one check; an exception fails it with the error as diagnostics.
async function check(name, fn) {
  try {
    const r = await fn();
    return ok(r === true || (r && r.ok), name, r && r.diag);
  } catch (e) {
    return ok(false, name, e && e.stack ? e.stack : String(e));
  }
}
const sleepMs = (ms) => new Promise((r) => setTimeout(r, ms));
const within = (p, ms, what) => Promise.race([p, sleepMs(ms).then(() => { throw new Error(`${what}: no answer within ${ms} ms`); })]);

// `rig env serve` prints RIG_SERVE_PORT=<port> on stdout once bound; wait
// for the whole line (it may arrive in pieces).
function startServer() {
  const proc = spawn(rig, ['env', 'serve', tasksJson, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const srv = { proc, out: '', err: '', port: null };
  srv.exited = new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal })));
  srv.ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no RIG_SERVE_PORT line within 60 s')), 60000);
    proc.stdout.on('data', (d) => {
      srv.out += d;
      const m = /^RIG_SERVE_PORT=(\d+)\r?$/m.exec(srv.out.slice(0, srv.out.lastIndexOf('\n') + 1));
      if (m && srv.port === null) {
        clearTimeout(timer);
        srv.port = Number(m[1]);
        resolve(srv);
      }
    });
    proc.stderr.on('data', (d) => { srv.err += d; });
    proc.once('error', (e) => { clearTimeout(timer); reject(e); });
    srv.exited.then((st) => { clearTimeout(timer); reject(new Error(`exited before listening: ${JSON.stringify(st)}`)); });
  });
  return srv;
}

// One control-channel connection: call(method, params) -> the reply.
function control(port) {
  const sock = net.connect(port, '127.0.0.1');
  let buf = '';
  let nextId = 1;
  const waiting = new Map();
  sock.setEncoding('utf8');
  sock.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const msg = JSON.parse(line);
      const w = waiting.get(msg.id);
      if (w) {
        waiting.delete(msg.id);
        w(msg);
      }
    }
  });
  const connected = new Promise((resolve, reject) => { sock.once('connect', resolve); sock.once('error', reject); });
  return {
    async call(method, params) {
      await connected;
      const id = nextId++;
      const reply = new Promise((resolve) => waiting.set(id, resolve));
      sock.write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }) + '\n');
      return within(reply, 180000, method);
    },
    async result(method, params) {
      const r = await this.call(method, params);
      if (!('result' in r))
        throw new Error(`${method}: ${JSON.stringify(r)}`);
      return r.result;
    },
    close() { sock.end(); },
  };
}

function toolsBinding(started) {
  const b = (started.bindings || []).find((x) => x.name === 'tools');
  if (!b)
    throw new Error(`no tools binding in ${JSON.stringify(started)}`);
  return { url: new URL(b.url), token: b.params && b.params.auth_token, binding: b };
}
function newClient(name) {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  client.errors = [];
  client.onerror = (e) => client.errors.push(String(e && e.message ? e.message : e));
  return client;
}
async function connectTools(name, url, token) {
  const client = newClient(name);
  const headers = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  await within(client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } })), 10000, 'connect');
  return client;
}

// ---- the server and one session's episode --------------------------------------

const srv = startServer();
let up = false;
await check('rig env serve examples/tasks.json --port 0 prints RIG_SERVE_PORT', async () => {
  await srv.ready;
  up = true;
  return { ok: srv.port > 0, diag: srv.out };
});
if (!up) {
  console.log(`Bail out! rig env serve did not start: ${srv.err.replace(/\n/g, ' ')}`);
  srv.proc.kill('SIGKILL');
  process.exit(1);
}

const ctl = control(srv.port);
let started = null;
let tools = null;
await check('tasks.start fix-bug: a workspace and an MCP "tools" binding (streamable-http, auth_token)', async () => {
  started = await ctl.result('tasks.start', { id: 'fix-bug', args: {} });
  tools = toolsBinding(started);
  return {
    ok: typeof started.prompt === 'string' && path.isAbsolute(started.workspace) &&
      tools.binding.protocol === 'mcp/2025-11-25' && tools.binding.params.transport === 'streamable-http' &&
      typeof tools.token === 'string' && tools.token.length >= 16,
    diag: started,
  };
});

let client = null;
await check('the SDK client connects to the binding with Authorization: Bearer <auth_token>', async () => {
  client = await connectTools('rig-env-agent', tools.url, tools.token);
  return { ok: client.getServerVersion().name === 'rig', diag: client.getServerVersion() };
});
const needs = (fn) => async () => (client ? fn() : { ok: false, diag: 'not connected' });

await check('tools/list: read_file, grep, edit_file and shell are there', needs(async () => {
  const names = (await client.listTools()).tools.map((t) => t.name);
  const missing = ['read_file', 'grep', 'edit_file', 'shell'].filter((x) => !names.includes(x));
  return { ok: missing.length === 0, diag: { missing, names } };
}));

await check('grep "i <= len" (relative path src) finds src/wordcount.c line 15', needs(async () => {
  const r = await client.callTool({ name: 'grep', arguments: { pattern: 'i <= len', path: 'src', output_mode: 'content' } });
  const t = textOf(r);
  return { ok: !r.isError && /wordcount\.c/.test(t) && /\b15\b/.test(t) && !t.includes('main.c'), diag: r };
}));

await check('read_file src/wordcount.c reads the session workspace\'s copy', needs(async () => {
  const r = await client.callTool({ name: 'read_file', arguments: { path: 'src/wordcount.c' } });
  return { ok: !r.isError && textOf(r).includes('for (size_t i = 0; i <= len; i++)'), diag: r };
}));

await check('edit_file fixes the bound; the file in the workspace changed', needs(async () => {
  const r = await client.callTool({
    name: 'edit_file',
    arguments: { path: 'src/wordcount.c', edits: [{ oldText: 'i <= len', newText: 'i < len' }] },
  });
  const onDisk = readFileSync(path.join(started.workspace, 'src', 'wordcount.c'), 'utf8');
  return { ok: !r.isError && onDisk.includes('i < len; i++') && !onDisk.includes('i <= len'), diag: { r, onDisk } };
}));

await check('shell "make -s test" runs in the workspace and passes', needs(async () => {
  const r = await client.callTool({ name: 'shell', arguments: { command: 'make -s test' } }, undefined, { timeout: 120000 });
  const t = textOf(r) + JSON.stringify(r.structuredContent || {});
  return { ok: !r.isError && t.includes('wordcount: 9 tests, 0 failed'), diag: r };
}));

await check('tasks.grade: score 1 with tests-pass, tests-untouched and bound-fixed all 1', async () => {
  const g = await ctl.result('tasks.grade', { answer: 'wc_words looped to i <= len and counted the NUL after the text.' });
  const s = Object.fromEntries((g.subscores || []).map((x) => [x.name, x.value]));
  return { ok: g.score === 1 && s['tests-pass'] === 1 && s['tests-untouched'] === 1 && s['bound-fixed'] === 1, diag: g };
});
await check('the agent\'s client saw no protocol errors', needs(async () => ({ ok: client.errors.length === 0, diag: client.errors })));
if (client)
  await client.close().catch(() => {});

// ---- tokens ---------------------------------------------------------------------------

const ctl2 = control(srv.port);
let started2 = null;
await check('a second session gets its own workspace and token', async () => {
  started2 = await ctl2.result('tasks.start', { id: 'fix-bug', args: {} });
  const t2 = toolsBinding(started2);
  return { ok: started2.workspace !== started.workspace && t2.token !== tools.token, diag: started2 };
});

async function expect401(name, token) {
  await check(name, async () => {
    const { url } = toolsBinding(started2);
    let c = null;
    try {
      c = await connectTools('rig-env-intruder', url, token);
    } catch (e) {
      return { ok: e && e.code === 401, diag: { code: e && e.code, message: String(e && e.message) } };
    }
    await c.close().catch(() => {});
    return { ok: false, diag: 'connected' };
  });
}
await expect401('connecting without a token: 401', undefined);
await expect401('connecting with a wrong token: 401', 'f'.repeat(32));

await check('the second token reaches the second workspace: still unfixed', async () => {
  const t2 = toolsBinding(started2);
  const c = await connectTools('rig-env-agent-2', t2.url, t2.token);
  const r = await c.callTool({ name: 'read_file', arguments: { path: 'src/wordcount.c' } });
  await c.close().catch(() => {});
  return { ok: !r.isError && textOf(r).includes('i <= len'), diag: r };
});
await check('the second session, graded unfixed, scores 0', async () => {
  const g = await ctl2.result('tasks.grade', { answer: 'nothing to do' });
  return { ok: g.score === 0, diag: g };
});

await ctl.call('bye').catch(() => {});
await ctl2.call('bye').catch(() => {});
ctl.close();
ctl2.close();

await check('rig env serve exits 0 on SIGTERM', async () => {
  srv.proc.kill('SIGTERM');
  const st = await Promise.race([srv.exited, sleepMs(30000).then(() => null)]);
  if (!st) {
    srv.proc.kill('SIGKILL');
    return { ok: false, diag: { error: 'still running 30 s after SIGTERM', stderr: srv.err } };
  }
  return { ok: st.code === 0 && st.signal === null, diag: { ...st, stderr: srv.err } };
});

done();
