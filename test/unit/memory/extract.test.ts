/** Deterministic extraction of candidate memories. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractCandidates } from '../../../services/memory/src/domain/extract.js';
import { contentKey, estimateTokens } from '../../../services/memory/src/domain/records.js';

test('extracts durable statements of the user, typed, and skips questions, chatter and assistant turns', () => {
  const c = extractCandidates([
    { role: 'user', content: 'Hello there! My team is the payments squad. Can you help me?' },
    { role: 'assistant', content: 'I am an assistant and I prefer tea.' },
    { role: 'user', content: [{ type: 'text', text: "Don't use tables in answers. The runbook is in Confluence at PAY-7. We are building a ledger service." }] },
    { role: 'user', content: 'Remember that I live in Porto.' },
  ]);
  assert.deepEqual(c.map((x) => [x.memory_type, x.content]), [
    ['user', 'My team is the payments squad.'],
    ['feedback', "Don't use tables in answers."],
    ['reference', 'The runbook is in Confluence at PAY-7.'],
    ['project', 'We are building a ledger service.'],
    ['user', 'I live in Porto.'],
  ]);
});

test('content keys and token estimates', () => {
  assert.equal(contentKey('  Hello, WORLD!! '), 'hello world');
  assert.equal(estimateTokens('abcdefgh'), 2);
});
