/**
 * The runtime's receipt summary (issue 13 item 7): the first `prompt_generated` of a chat carries
 * the first words of the user's message as the model gets it (after the input guardrail), one line,
 * at most 80 characters.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promptSummary } from '../../../services/agent-runtime/src/domain/chat/model-loop.js';

test('the last user message of the prompt, flattened and cut to 80 characters', () => {
  assert.equal(promptSummary([
    { role: 'system', content: 'You are helpful.' }, { role: 'user', content: 'old question' }, { role: 'assistant', content: 'old answer' },
    { role: 'user', content: '  What is\n\tthe plan?  ' },
  ]), 'What is the plan?');
  const long = promptSummary([{ role: 'user', content: 'word '.repeat(40) }])!;
  assert.equal([...long].length, 80);
  assert.ok(long.endsWith('…'));
});

test('text parts only, a redacted message as the model sees it, null without user text', () => {
  assert.equal(promptSummary([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:' } }, { type: 'text', text: 'What is in it?' }] }]), 'What is in it?');
  assert.equal(promptSummary([{ role: 'user', content: 'Mail <EMAIL_ADDRESS_1> today' }]), 'Mail <EMAIL_ADDRESS_1> today');
  assert.equal(promptSummary([{ role: 'system', content: 'x' }]), null);
  assert.equal(promptSummary([{ role: 'user', content: '   ' }]), null);
  assert.equal(promptSummary([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:' } }] }]), null);
});
