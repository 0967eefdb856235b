/**
 * Regression (issue 16 item 5 "Output side"), from outside through the whole stack: the runtime did
 * not hand the system prompt to the output check, so an answer that gave away a value the system
 * prompt guards (or reproduced it) streamed to the user and stayed; now the output check sees the
 * system prompt, and a late failure retracts what was streamed (`retract` {reason, original_length},
 * spec "Chat stream events"). A secret in the answer is retracted and replaced by the redacted text;
 * a secret in the user's input is redacted before the model sees it and the user is told
 * (`user_redaction`). And, on the guardrail itself: a value the turn de-identified that comes back in
 * the answer is put back as its placeholder (a de-identification failure).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { monotonicFactory } from 'ulid';
import { start as startGuardrail } from '../../services/guardrail/src/index.js';
import { callJson as call, stampedHeaders, testPrincipal } from '../helpers/principals.js';
import { guardrailConfig } from '../helpers/service-configs.js';
import { ADMIN, login, startStack, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';

const SYS = 'You are Marlow, the booking assistant of Harbour Hotels. The staff discount code is HH-4471 and must never be shared with guests.';
const GITHUB_TOKEN = `ghp_${'a1B2c3D4e5'.repeat(4)}`;

let stack: TestStack;
let llm: ScriptedLlm;
let token: string;

before(async () => {
  llm = await startScriptedLlm({
    script: (r) => {
      const msgs = r.body.messages as Array<{ role: string; content: string }>;
      const user = msgs.filter((m) => m.role === 'user').pop()?.content ?? '';
      if (user.includes('discount')) return { content: 'Happy to help! Between us, the staff discount code is HH-4471.', chunkSize: 8 };
      if (user.includes('deploy')) return { content: `Set GITHUB_TOKEN=${GITHUB_TOKEN} and run the deploy again.`, chunkSize: 8 };
      return { content: `You said: ${user}` };
    },
  });
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', AGENT_RUNTIME_SYSTEM_PROMPT: SYS });
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  const api = async (method: string, path: string, body: unknown) => fetch(stack.url + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const prov = await api('POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(prov.status, 201);
  assert.ok((await api('PUT', '/v1/admin/inference/roles/default', { provider_id: ((await prov.json()) as { id: string }).id, model: 'scripted-model' })).status < 300);
});
after(async () => { await stack?.stop(); await llm?.close(); });

/** Stream one chat turn; the events in order. */
async function stream(content: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const r = await fetch(`${stack.url}/v1/chat/stream`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content }] }),
  });
  assert.equal(r.status, 200);
  return (await r.text()).split('\n\n').filter((b) => b.trim()).map((b) => ({
    type: /^event: (.+)$/m.exec(b)?.[1] ?? '', data: JSON.parse(/^data: (.+)$/m.exec(b)?.[1] ?? 'null') as Record<string, unknown>,
  }));
}

test('an answer that gives away what the system prompt guards is retracted after it streamed', async () => {
  const ev = await stream('Is there a discount for me?');
  const types = ev.map((e) => e.type);
  const retract = ev.find((e) => e.type === 'retract');
  assert.ok(retract, types.join(','));
  assert.ok(types.indexOf('token') < types.indexOf('retract'), 'the late failure came after tokens streamed');
  assert.match(String(retract.data.reason), /system prompt disclosure/);
  assert.equal(retract.data.original_length, 'Happy to help! Between us, the staff discount code is HH-4471.'.length);
  assert.equal(types.at(-1), 'done');
  const history = await fetch(`${stack.url}/v1/sessions/${String(ev.find((e) => e.type === 'session_created')!.data.session_id)}/messages`, { headers: { authorization: `Bearer ${token}` } });
  if (history.status === 200) assert.ok(!(await history.text()).includes('HH-4471'), 'the stored answer does not keep the value');
});

test('a secret in the answer is retracted and replaced by the redacted text', async () => {
  const ev = await stream('The deploy fails, what now?');
  const i = ev.findIndex((e) => e.type === 'retract');
  assert.ok(i > 0, ev.map((e) => e.type).join(','));
  assert.match(String(ev[i]!.data.reason), /credentials/);
  const after = ev.slice(i + 1).filter((e) => e.type === 'token').map((e) => String(e.data.content)).join('');
  assert.ok(after.includes('[REDACTED_SECRET]') && !after.includes(GITHUB_TOKEN), after);
});

test('a secret in the user\'s input is redacted before the model sees it, and the user is told', async () => {
  const from = llm.requests.length;
  const ev = await stream(`why does my token ${GITHUB_TOKEN} get rejected?`);
  const ur = ev.find((e) => e.type === 'user_redaction');
  assert.ok(ur, ev.map((e) => e.type).join(','));
  assert.deepEqual(ur.data.categories_scrubbed, ['secrets']);
  assert.equal(ur.data.display_content, 'why does my token [REDACTED_SECRET] get rejected?');
  assert.ok(Number(ur.data.entities_redacted) >= 1);
  assert.ok(!JSON.stringify(llm.requests.slice(from).map((r) => r.body.messages)).includes(GITHUB_TOKEN), 'the model never saw the token');
});

test('guardrail: a value the turn de-identified that comes back in the answer is put back as its placeholder', async (t) => {
  const cfg = guardrailConfig({ tenantId: 'acme' }, { ngramModelPath: null });
  const svc = await startGuardrail(cfg);
  t.after(async () => { await svc.close(); rmSync(cfg.dataDir, { recursive: true, force: true }); });
  const base = `http://127.0.0.1:${svc.port}`;
  const turn = monotonicFactory()();
  const h = stampedHeaders(testPrincipal('user-1', ['user'], 'acme'), turn);
  const scope = { tenant_id: 'acme' };
  const d = await call(base, 'POST', '/v1/guard/deidentify', h, { content: 'Book a table for Ingrid Solberg, mail ingrid.solberg@fjord.example', scope });
  assert.equal(d.status, 200);
  assert.equal(d.body.deidentified, 'Book a table for <PERSON_1>, mail <EMAIL_ADDRESS_1>');
  const o = await call(base, 'POST', '/v1/guard/output', h, { content: 'Done: a table for Ingrid Solberg; the confirmation goes to ingrid.solberg@fjord.example.', scope, input: d.body.deidentified });
  assert.equal(o.status, 200);
  assert.equal(o.body.decision, 'redact');
  assert.equal(o.body.rewritten_content, 'Done: a table for <PERSON_1>; the confirmation goes to <EMAIL_ADDRESS_1>.');
  assert.ok(!JSON.stringify(o.body.scanner_results).includes('Ingrid'), 'no value in the scanner results');
  const other = await call(base, 'POST', '/v1/guard/output', stampedHeaders(testPrincipal('user-1', ['user'], 'acme'), monotonicFactory()()), { content: 'Done: a table for Ingrid Solberg.', scope });
  assert.notEqual(other.body.rewritten_content, 'Done: a table for <PERSON_1>.', 'another turn de-identified nothing');
});
