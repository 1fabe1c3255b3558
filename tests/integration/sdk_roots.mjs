// sdk_roots.mjs — checks that a client's roots (MCP roots/list) replace
// `rig serve --root` for the file tools, shared by sdk_stdio.mjs and
// sdk_http.mjs. The official SDK's Client declares the roots capability
// and answers roots/list from a handler; rig asks once the client is
// initialized and again on notifications/roots/list_changed.
//
// A tree under /tmp: served/ (the --root), "client root ✓"/ and other/
// (the client's roots: a space and a non-ASCII letter, so the URI is
// percent-encoded). rig's question and the tool calls travel separately,
// so each check that follows a change of roots waits (a few seconds at
// most) for the new roots to be in force before judging.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const textOf = (result) => (result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const sleepMs = (ms) => new Promise((r) => setTimeout(r, ms));

// Polls fn until it returns something truthy, or `ms` pass (then the last value).
async function until(fn, ms = 5000) {
  const t0 = Date.now();
  let v;
  while (!(v = await fn()) && Date.now() - t0 < ms)
    await sleepMs(50);
  return v;
}

function makeTree() {
  const base = realpathSync(mkdtempSync('/tmp/rig-roots-'));
  const t = {
    base,
    served: join(base, 'served'),
    mine: join(base, 'client root ✓'),
    other: join(base, 'other'),
  };
  for (const d of [t.served, t.mine, t.other])
    mkdirSync(d);
  writeFileSync(join(t.served, 'served.txt'), 'from --root\n');
  writeFileSync(join(t.mine, 'mine.txt'), 'from the client root\n');
  writeFileSync(join(t.other, 'other.txt'), 'from the other client root\n');
  return t;
}

// A client with roots: `roots` (paths) is what its handler answers.
function rootsClient(name, state) {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
  client.errors = [];
  client.onerror = (e) => client.errors.push(String(e && e.message ? e.message : e));
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    state.asked++;
    return { roots: state.roots.map((p) => ({ uri: pathToFileURL(p).href, name: p })) };
  });
  return client;
}

function plainClient(name) {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  client.errors = [];
  client.onerror = (e) => client.errors.push(String(e && e.message ? e.message : e));
  return client;
}

const read = (client, path) => client.callTool({ name: 'read_file', arguments: { path } });
const reads = async (client, path, want) => {
  const r = await read(client, path);
  return !r.isError && textOf(r).includes(want);
};

// open(args) starts `rig serve ...args` over the caller's transport and
// resolves to { connect(client), stop() }: connect resolves once the client
// is initialized; stop ends it all and resolves to a check result (exit
// status). With `sessions`, one server takes several clients (HTTP).
export async function rootsChecks(check, open, how, { sessions = false } = {}) {
  const t = makeTree();
  const mineFile = join(t.mine, 'mine.txt');
  const otherFile = join(t.other, 'other.txt');
  const servedFile = join(t.served, 'served.txt');

  // ---- the client's roots replace --root ----
  const state = { roots: [t.mine], asked: 0 };
  const client = rootsClient(`rig-roots-${how}`, state);
  let srv = null;
  await check(`${how} roots: a client declaring roots is asked for them (roots/list) once initialized`, async () => {
    srv = await open(['--root', t.served]);
    await srv.connect(client);
    const asked = await until(() => state.asked > 0);
    return { ok: !!asked, diag: { asked: state.asked } };
  });
  const needs = (fn) => async () => (srv ? fn() : { ok: false, diag: 'no server' });

  await check(`${how} roots: read_file of a file under the client's root (a percent-encoded file:// URI) succeeds`, needs(async () => {
    const ok = await until(() => reads(client, mineFile, 'from the client root'));
    const r = await read(client, mineFile);
    return { ok: !!ok, diag: r };
  }));

  await check(`${how} roots: a relative path resolves against the client's first root`, needs(async () => {
    const r = await read(client, 'mine.txt');
    return { ok: !r.isError && textOf(r).includes('from the client root'), diag: r };
  }));

  await check(`${how} roots: a file under --root (outside the client's roots) is refused, naming the client's root`, needs(async () => {
    const r = await read(client, servedFile);
    const text = textOf(r);
    return {
      ok: r.isError === true && text.includes('Access denied') && text.includes(t.mine) && !text.includes(`${t.served})`),
      diag: r,
    };
  }));

  await check(`${how} roots: notifications/roots/list_changed switches to the new roots`, needs(async () => {
    const before = state.asked;
    state.roots = [t.other];
    await client.sendRootsListChanged();
    const switched = await until(() => reads(client, otherFile, 'from the other client root'));
    const old = await read(client, mineFile);
    return {
      ok: !!switched && state.asked > before && old.isError === true && textOf(old).includes(t.other),
      diag: { asked: state.asked, old },
    };
  }));

  await check(`${how} roots: a client that then offers no roots gets --root again`, needs(async () => {
    state.roots = [];
    await client.sendRootsListChanged();
    const back = await until(() => reads(client, servedFile, 'from --root'));
    const r = await read(client, otherFile);
    return { ok: !!back && r.isError === true, diag: r };
  }));

  await check(`${how} roots: no protocol errors on the client`, needs(async () => {
    return { ok: client.errors.length === 0, diag: client.errors.join('\n') };
  }));

  // ---- over HTTP: two sessions, each with its own roots ----
  if (sessions) {
    const st2 = { roots: [t.other], asked: 0 };
    const withRoots = rootsClient(`rig-roots-${how}-b`, st2);
    const without = plainClient(`rig-roots-${how}-c`);
    state.roots = [t.mine];
    await check(`${how} roots: sessions do not share roots (one with mine, one with other, one with none)`, needs(async () => {
      await client.sendRootsListChanged();
      await srv.connect(withRoots);
      await srv.connect(without);
      const a = await until(() => reads(client, mineFile, 'from the client root'));
      const b = await until(() => reads(withRoots, otherFile, 'from the other client root'));
      const aOther = await read(client, otherFile);
      const bMine = await read(withRoots, mineFile);
      const cServed = await read(without, servedFile);
      const cMine = await read(without, mineFile);
      return {
        ok: !!a && !!b && aOther.isError === true && bMine.isError === true && !cServed.isError &&
          cMine.isError === true,
        diag: { aOther, bMine, cServed, cMine },
      };
    }));
    await check(`${how} roots: a session that ends leaves the others' roots alone`, needs(async () => {
      await withRoots.transport?.terminateSession?.();
      await withRoots.close().catch(() => {});
      const r = await read(client, mineFile);
      const c = await read(without, servedFile);
      return { ok: !r.isError && !c.isError, diag: { r, c } };
    }));
    await without.close().catch(() => {});
  }

  await client.close().catch(() => {});
  if (srv)
    await check(`${how} roots: rig serve exits 0`, async () => srv.stop());

  // ---- --fixed-roots: the client's roots are not asked for ----
  const fstate = { roots: [t.mine], asked: 0 };
  const fclient = rootsClient(`rig-roots-${how}-fixed`, fstate);
  let fsrv = null;
  await check(`${how} roots: with --fixed-roots the client is never asked and --root stays`, async () => {
    fsrv = await open(['--root', t.served, '--fixed-roots']);
    await fsrv.connect(fclient);
    await fclient.sendRootsListChanged();
    await sleepMs(300);
    await fclient.ping();
    const served = await read(fclient, servedFile);
    const mine = await read(fclient, mineFile);
    return {
      ok: fstate.asked === 0 && !served.isError && mine.isError === true && textOf(mine).includes(t.served),
      diag: { asked: fstate.asked, served, mine },
    };
  });
  await fclient.close().catch(() => {});
  if (fsrv)
    await check(`${how} roots: rig serve --fixed-roots exits 0`, async () => fsrv.stop());

  rmSync(t.base, { recursive: true, force: true });
}
