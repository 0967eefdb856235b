/**
 * Regression (found while building issue 13): a chat message whose `content` is an array of ONE
 * part (`[{type: "text", text}]`, or a lone file part) answered 400, because under the shared
 * validator's `coerceTypes: 'array'` the `anyOf` string branch coerced the one-part array to its
 * element and refused it before the array branch saw it. Spec "Chat": content is a string or an
 * array of content parts.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../helpers/runtime-harness.js';
import type { ChatResponse } from '../../services/agent-runtime/src/contracts.js';

let h: Harness;

before(async () => {
  h = await startHarness({}, {
    script: (r) => {
      const msgs = r.body.messages as Array<{ role: string; content: unknown }>;
      if (r.body.model === 'title') return { content: 'Title: "One part"' };
      const last = msgs[msgs.length - 1]!;
      return { content: `echo: ${typeof last.content === 'string' ? last.content : JSON.stringify(last.content)}` };
    },
  });
});
after(async () => { await h.close(); });

test('a one-part content array is accepted and reaches the model as that text', async () => {
  const turn = '01JTESTONEPART000000000001';
  await h.startTurn(turn);
  const r = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: [{ type: 'text', text: 'only part' }] }] }, {}, turn);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.match((r.body as ChatResponse).message.content, /only part/);
});

test('a string and a two-part array still validate, and a wrong type is still a 400', async () => {
  const t1 = '01JTESTONEPART000000000002';
  await h.startTurn(t1);
  const s = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'plain string' }] }, {}, t1);
  assert.equal(s.status, 200, JSON.stringify(s.body));
  assert.equal((s.body as ChatResponse).message.content, 'echo: plain string');
  const t2 = '01JTESTONEPART000000000003';
  await h.startTurn(t2);
  const two = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: [{ type: 'text', text: 'first' }, { type: 'text', text: 'second' }] }] }, {}, t2);
  assert.equal(two.status, 200, JSON.stringify(two.body));
  const bad = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 42 }] }, {}, '01JTESTONEPART000000000004');
  assert.equal(bad.status, 400);
  assert.equal((bad.body as { code: string }).code, 'invalid_request');
  const empty = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: [] }] }, {}, '01JTESTONEPART000000000005');
  assert.equal(empty.status, 400);
});
