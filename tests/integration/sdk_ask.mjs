// sdk_ask.mjs — checks of server-to-client requests (elicitation/create,
// sampling/createMessage) shared by sdk_stdio.mjs and sdk_http.mjs. They
// run against examples/conformance_server, whose tools test_elicitation and
// test_sampling ask the client and answer with what it said:
//   test_elicitation -> "User response: action=<action>, content=<content JSON>"
//   test_sampling    -> "LLM response: <text of the client's answer>"
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const textOf = (result) => (result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

// check(name, fn) is the caller's TAP check; connect(client) connects the
// client over the caller's transport and resolves once it is initialized;
// `how` names the transport in the check names.
export async function askChecks(check, connect, how) {
  const asked = { elicit: [], sample: [] };
  let elicitAnswer = { action: 'accept', content: { username: 'rig-test', email: 'rig@example.com' } };
  const client = new Client({ name: 'rig-sdk-ask', version: '1.0.0' },
    { capabilities: { elicitation: {}, sampling: {} } });
  const clientErrors = [];
  client.onerror = (e) => clientErrors.push(String(e && e.message ? e.message : e));
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.elicit.push(req.params);
    return elicitAnswer;
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    asked.sample.push(req.params);
    return {
      role: 'assistant',
      content: { type: 'text', text: 'Rig sampled this reply' },
      model: 'rig-test-model',
      stopReason: 'endTurn',
    };
  });

  let connected = false;
  await check(`${how}: conformance_server initializes a client declaring elicitation and sampling`, async () => {
    await connect(client);
    connected = true;
    const info = client.getServerVersion();
    return { ok: info && info.name === 'mcp-conformance-test-server', diag: info };
  });
  const needs = (fn) => async () => (connected ? fn() : { ok: false, diag: 'not connected' });

  await check(`${how}: elicitation/create reaches the client, the accepted answer reaches the tool`, needs(async () => {
    const message = `Who are you (${how})?`;
    const r = await client.callTool({ name: 'test_elicitation', arguments: { message } }, undefined, { timeout: 20000 });
    const p = asked.elicit[0];
    const want = 'User response: action=accept, content={"username":"rig-test","email":"rig@example.com"}';
    return {
      ok: !r.isError && asked.elicit.length === 1 && p.message === message &&
        p.requestedSchema && p.requestedSchema.type === 'object' &&
        p.requestedSchema.properties && p.requestedSchema.properties.username &&
        textOf(r) === want,
      diag: { result: r, asked: asked.elicit, want },
    };
  }));

  await check(`${how}: a declined elicitation reaches the tool as action=decline`, needs(async () => {
    elicitAnswer = { action: 'decline' };
    const r = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Decline this' } }, undefined, { timeout: 20000 });
    return {
      ok: !r.isError && asked.elicit.length === 2 && asked.elicit[1].message === 'Decline this' &&
        textOf(r) === 'User response: action=decline, content=null',
      diag: { result: r, asked: asked.elicit },
    };
  }));

  await check(`${how}: sampling/createMessage reaches the client, its reply reaches the tool`, needs(async () => {
    const prompt = `Say something (${how})`;
    const r = await client.callTool({ name: 'test_sampling', arguments: { prompt } }, undefined, { timeout: 20000 });
    const p = asked.sample[0];
    return {
      ok: !r.isError && asked.sample.length === 1 && p.maxTokens === 100 &&
        Array.isArray(p.messages) && p.messages[0].role === 'user' &&
        p.messages[0].content.text === prompt &&
        textOf(r) === 'LLM response: Rig sampled this reply',
      diag: { result: r, asked: asked.sample },
    };
  }));

  await check(`${how}: no protocol errors on the asking client`, needs(async () => {
    return { ok: clientErrors.length === 0, diag: clientErrors.join('\n') };
  }));

  return client;
}
