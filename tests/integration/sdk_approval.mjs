// sdk_approval.mjs RIG — `rig serve --policy ask` against the official MCP
// TypeScript SDK client answering elicitation/create, over stdio and over
// Streamable HTTP: the approval gate (allow once; always, which saves the
// allowlist file so that the same call is not asked again; deny; a client
// without the elicitation capability is refused with a clear message),
// ask_user (answered, typed, dismissed, no_user_available), and plan mode
// (enter, a write outside the plans directory refused, a write under it
// allowed without asking, exit approved through elicitation). With the
// shell tool present, "always" for a shell command saves its prefix. TAP
// output; exits non-zero when a check fails.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ok, done, textOf } from './harness.mjs';

const rig = process.argv[2];
if (!rig) {
  console.error('usage: node sdk_approval.mjs RIG');
  process.exit(2);
}

async function check(name, fn) {
  try {
    const r = await fn();
    if (r && r.skip) {
      n++;
      console.log(`ok ${n} - ${name} # SKIP ${r.skip}`);
    } else {
      ok(r === true || (r && r.ok), name, r && r.diag);
    }
  } catch (e) {
    ok(false, name, e && e.stack ? e.stack : String(e));
  }
}
const sleepMs = (ms) => new Promise((r) => setTimeout(r, ms));
const readJson = (p) => (existsSync(p) ? JSON.parse(readFileSync(p, 'utf8')) : null);

const tmp = mkdtempSync(join(tmpdir(), 'rig-sdk-approval-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

// A client whose person answers elicitation from a queue: each entry is the
// elicitation result, or a function of the request's params giving one.
function personClient(name, elicit) {
  const client = new Client({ name, version: '1.0.0' },
    { capabilities: elicit ? { elicitation: {} } : {} });
  client.asked = [];
  client.answers = [];
  client.errors = [];
  client.onerror = (e) => client.errors.push(String(e && e.message ? e.message : e));
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      client.asked.push(req.params);
      const a = client.answers.shift();
      if (!a)
        return { action: 'cancel' };
      return typeof a === 'function' ? a(req.params) : a;
    });
  }
  return client;
}
const choose = (choice, text) => ({ action: 'accept', content: text ? { choice, text } : { choice } });
const call = (client, name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 20000 });

function startHttp(args) {
  const proc = spawn(rig, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const srv = { proc, out: '', err: '', url: null };
  srv.exited = new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal })));
  srv.ready = new Promise((resolve, reject) => {
    const re = /http:\/\/127\.0\.0\.1:(\d+)\/mcp/;
    const timer = setTimeout(() => reject(new Error('no URL within 10 s')), 10000);
    proc.stdout.on('data', (d) => {
      srv.out += d;
      const m = re.exec(srv.out);
      if (m && !srv.url) {
        clearTimeout(timer);
        srv.url = new URL(m[0]);
        resolve(srv);
      }
    });
    proc.stderr.on('data', (d) => { srv.err += d; });
    srv.exited.then((st) => { clearTimeout(timer); reject(new Error(`exited: ${JSON.stringify(st)} ${srv.err}`)); });
  });
  return srv;
}

async function suite(how) {
  const root = join(tmp, how, 'root');
  mkdirSync(root, { recursive: true });
  const allow = join(tmp, how, 'config', 'allowlist.json');
  const args = ['serve', '--policy', 'ask', '--allowlist', allow, '--root', root];
  let srv = null;
  const transportFor = () => (how === 'stdio'
    ? new StdioClientTransport({ command: rig, args, stderr: 'pipe' })
    : new StreamableHTTPClientTransport(srv.url));
  if (how === 'http') {
    srv = startHttp([...args, '--http', '127.0.0.1:0']);
    await srv.ready;
  }
  const person = personClient(`rig-approval-${how}`, true);
  const nobody = personClient(`rig-approval-${how}-nobody`, false);
  await person.connect(transportFor());
  await nobody.connect(transportFor());
  const tools = (await person.listTools()).tools.map((t) => t.name);

  await check(`${how}: ask_user, enter_plan_mode and exit_plan_mode are listed`, async () => ({
    ok: ['ask_user', 'enter_plan_mode', 'exit_plan_mode'].every((t) => tools.includes(t)),
    diag: tools,
  }));

  await check(`${how}: a read-only tool runs without asking`, async () => {
    const r = await call(person, 'list_directory', { path: '.' });
    return { ok: !r.isError && person.asked.length === 0, diag: { r, asked: person.asked } };
  });

  await check(`${how}: write_file asks through elicitation; "Allow once" runs it`, async () => {
    person.answers.push(choose('Allow once'));
    const r = await call(person, 'write_file', { path: 'once.txt', content: 'one' });
    const p = person.asked.at(-1) || {};
    const props = (p.requestedSchema || {}).properties || {};
    return {
      ok: !r.isError && person.asked.length === 1 && readFileSync(join(root, 'once.txt'), 'utf8') === 'one' &&
        /write_file/.test(p.message) && /"content":"one"/.test(p.message) &&
        /Always allow" adds to the allowlist/.test(p.message) &&
        JSON.stringify(props.choice && props.choice.enum) === '["Allow once","Always allow","Deny"]' &&
        readJson(allow) === null,
      diag: { r, asked: person.asked },
    };
  });

  await check(`${how}: "Always allow" runs it and saves the path to the allowlist file`, async () => {
    person.answers.push(choose('Always allow'));
    const r = await call(person, 'write_file', { path: 'always.txt', content: 'a' });
    const list = readJson(allow);
    return {
      ok: !r.isError && person.asked.length === 2 && list && Array.isArray(list.write_file) &&
        list.write_file.includes(join(root, 'always.txt')),
      diag: { r, list },
    };
  });

  await check(`${how}: the same call again is not asked`, async () => {
    const r = await call(person, 'write_file', { path: 'always.txt', content: 'b' });
    return {
      ok: !r.isError && person.asked.length === 2 && readFileSync(join(root, 'always.txt'), 'utf8') === 'b',
      diag: { r, asked: person.asked.length },
    };
  });

  await check(`${how}: "Deny" with feedback refuses the call and tells the model`, async () => {
    person.answers.push(choose('Deny', 'not there'));
    const r = await call(person, 'write_file', { path: 'denied.txt', content: 'x' });
    return {
      ok: r.isError && /declined this call and said: "not there"/.test(textOf(r)) &&
        !existsSync(join(root, 'denied.txt')),
      diag: r,
    };
  });

  await check(`${how}: a declined form refuses the call`, async () => {
    person.answers.push({ action: 'decline' });
    const r = await call(person, 'write_file', { path: 'denied.txt', content: 'x' });
    return { ok: r.isError && /declined/.test(textOf(r)) && !existsSync(join(root, 'denied.txt')), diag: r };
  });

  await check(`${how}: a client without elicitation is refused, saying why and how to allow it`, async () => {
    const r = await call(nobody, 'write_file', { path: 'nobody.txt', content: 'x' });
    const t = textOf(r);
    return {
      ok: r.isError && /needs a person's approval \(--policy ask\), and nobody could give it/.test(t) &&
        /did not declare the elicitation capability/.test(t) && /--allowlist/.test(t) &&
        !existsSync(join(root, 'nobody.txt')),
      diag: t,
    };
  });

  if (tools.includes('shell')) {
    await check(`${how}: "Always allow" for a shell command saves its prefix; the next is not asked`, async () => {
      person.answers.push(choose('Always allow'));
      const before = person.asked.length;
      const r1 = await call(person, 'shell', { command: 'echo first' });
      const r2 = await call(person, 'shell', { command: 'echo second' });
      const list = readJson(allow) || {};
      return {
        ok: !r1.isError && !r2.isError && person.asked.length === before + 1 &&
          Array.isArray(list.shell) && list.shell.includes('echo *') && /second/.test(textOf(r2)),
        diag: { r1, r2, list },
      };
    });
  } else {
    await check(`${how}: "Always allow" for a shell command`, async () => ({ skip: 'no shell tool in this build' }));
  }

  const question = { question: 'Which colour?', options: ['red', 'green', 'blue'] };
  await check(`${how}: ask_user answered by picking an option`, async () => {
    person.answers.push(choose('green'));
    const r = await call(person, 'ask_user', question);
    const p = person.asked.at(-1);
    const s = r.structuredContent || {};
    return {
      ok: !r.isError && s.status === 'answered' && s.answer === 'green' && s.option_index === 1 &&
        p.message === 'Which colour?' &&
        JSON.stringify(p.requestedSchema.properties.choice.enum) === '["red","green","blue"]' &&
        p.requestedSchema.properties.text && p.requestedSchema.properties.text.type === 'string',
      diag: { r, p },
    };
  });

  await check(`${how}: ask_user answered in the person's own words`, async () => {
    person.answers.push({ action: 'accept', content: { text: 'teal' } });
    const r = await call(person, 'ask_user', question);
    const s = r.structuredContent || {};
    return { ok: !r.isError && s.status === 'answered' && s.answer === 'teal' && s.option_index === null, diag: r };
  });

  await check(`${how}: ask_user dismissed is not an error`, async () => {
    person.answers.push({ action: 'decline' });
    const r = await call(person, 'ask_user', question);
    const s = r.structuredContent || {};
    return { ok: !r.isError && s.status === 'dismissed' && s.answer === null, diag: r };
  });

  await check(`${how}: ask_user without elicitation: no_user_available, not an error`, async () => {
    const r = await call(nobody, 'ask_user', question);
    const s = r.structuredContent || {};
    return { ok: !r.isError && s.status === 'no_user_available' && /own judgement/.test(textOf(r)), diag: r };
  });

  // Plan mode.
  let plan = null;
  await check(`${how}: enter_plan_mode gives the plan's path under <root>/.rig/plans`, async () => {
    const r = await call(person, 'enter_plan_mode', { reason: 'try it' });
    const s = r.structuredContent || {};
    plan = s.path;
    return {
      ok: !r.isError && s.plan_mode === true && s.plans_dir === join(root, '.rig', 'plans') &&
        typeof plan === 'string' && plan.startsWith(s.plans_dir) && existsSync(plan),
      diag: r,
    };
  });

  await check(`${how}: in plan mode write_file outside the plans directory is refused, unasked`, async () => {
    const before = person.asked.length;
    const r = await call(person, 'write_file', { path: 'always.txt', content: 'c' });
    return {
      ok: r.isError && /plan mode is on/.test(textOf(r)) && person.asked.length === before &&
        readFileSync(join(root, 'always.txt'), 'utf8') === 'b',
      diag: r,
    };
  });

  await check(`${how}: in plan mode writing the plan needs no approval`, async () => {
    const before = person.asked.length;
    const r = await call(person, 'write_file', { path: plan, content: '# Plan\n\n1. Write hello.txt.\n' });
    return { ok: !r.isError && person.asked.length === before, diag: r };
  });

  await check(`${how}: plan mode is per session: the other client's session is not planning`, async () => {
    const r = await call(nobody, 'write_file', { path: 'other.txt', content: 'x' });
    return { ok: r.isError && /nobody could give it/.test(textOf(r)), diag: r };
  });

  await check(`${how}: exit_plan_mode shows the plan; approved, plan mode ends`, async () => {
    person.answers.push(choose('Approve the plan'));
    const r = await call(person, 'exit_plan_mode', {});
    const p = person.asked.at(-1);
    const s = r.structuredContent || {};
    return {
      ok: !r.isError && s.status === 'approved' && s.plan_mode === false &&
        /1\. Write hello\.txt\./.test(p.message) &&
        JSON.stringify(p.requestedSchema.properties.choice.enum) === '["Approve the plan","Keep planning"]',
      diag: { r, p },
    };
  });

  await check(`${how}: after plan mode, writes are put to the person again`, async () => {
    person.answers.push(choose('Allow once'));
    const before = person.asked.length;
    const r = await call(person, 'write_file', { path: 'hello.txt', content: 'hi' });
    return { ok: !r.isError && person.asked.length === before + 1 && existsSync(join(root, 'hello.txt')), diag: r };
  });

  await check(`${how}: no protocol errors on either client`, async () => ({
    ok: person.errors.length === 0 && nobody.errors.length === 0,
    diag: [...person.errors, ...nobody.errors],
  }));

  await person.close();
  await nobody.close();
  if (srv) {
    srv.proc.kill('SIGTERM');
    await Promise.race([srv.exited, sleepMs(5000)]);
  }
}

for (const how of ['stdio', 'http']) {
  try {
    await suite(how);
  } catch (e) {
    ok(false, `${how}: the suite ran to the end`, e && e.stack ? e.stack : String(e));
  }
}
done();
