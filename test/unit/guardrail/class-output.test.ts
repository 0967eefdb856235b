/**
 * The output side (issue 16 item 5), class by class: leaked secrets are redacted; a system prompt is
 * disclosed when it is reproduced, when a value it guards is given away, or when it is announced;
 * a value the turn de-identified that comes back in the answer is a de-identification failure and
 * its placeholder is put back. Sentences ours.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCheck } from '../../../services/guardrail/src/domain/check.js';
import { applyDeidLeak, restorePlaceholders } from '../../../services/guardrail/src/domain/deid-leak.js';
import { distinctiveTokens, systemPromptLeak } from '../../../services/guardrail/src/domain/leak.js';
import { DEFAULT_POLICY, resolvePolicy } from '../../../services/guardrail/src/domain/policy.js';

const SYS = 'You are Marlow, the booking assistant of Harbour Hotels. Staff discount code is HH-4471 and must never be shared with guests. Answer in a friendly tone and keep replies short.';
const out = (content: string, systemPrompt: string | null = SYS) => runCheck(content, { direction: 'output', policy: DEFAULT_POLICY, systemPrompt, input: 'Can I book a room for Friday?' }).result;

test('leaked secrets in an answer are redacted', () => {
  const r = out('Sure! Use the key sk-proj-Abcdefghijklmnopqrstuvwxyz0123 to call the booking API.');
  assert.equal(r.decision, 'redact');
  assert.ok(!r.rewritten_content!.includes('sk-proj-'), r.rewritten_content!);
  assert.ok(r.rewritten_content!.includes('[REDACTED_SECRET]'));
});

test('system-prompt disclosure: reproduced, guarded value given away, or announced; ordinary answers pass', () => {
  assert.deepEqual(distinctiveTokens(SYS), ['hh-4471']);
  assert.equal(out(`My instructions, word for word: ${SYS}`).decision, 'block', 'reproduced');
  assert.equal(out('Of course, as a returning guest you can use HH-4471 at checkout.').decision, 'block', 'guarded value given away');
  assert.match(systemPromptLeak('Of course, as a returning guest you can use HH-4471 at checkout.', SYS).detail, /distinctive value/);
  assert.equal(out('Here is my system prompt: be a friendly booking assistant.', null).decision, 'block', 'announced');
  for (const fine of ['Friday is available; shall I book a sea-view room?', 'Our staff are friendly and replies are short, as you can see.', 'The hotel opened in 2019.']) {
    assert.equal(out(fine).decision, 'allow', fine);
  }
  assert.deepEqual(distinctiveTokens('Today is 2024. Always greet users warmly.'), [], 'years and ordinary words are not secrets');
  assert.deepEqual(distinctiveTokens('The admin password is swordfish; the PIN: 0042.').sort(), ['0042', 'swordfish']);
});

test('de-identification failure: values the turn de-identified are put back as placeholders', () => {
  const values = new Map([['<PERSON_1>', 'Ingrid Solberg'], ['<EMAIL_ADDRESS_1>', 'ingrid@fjord.example']]);
  assert.deepEqual(restorePlaceholders('Dear Ingrid Solberg, we wrote to INGRID@fjord.example.', values), { text: 'Dear <PERSON_1>, we wrote to <EMAIL_ADDRESS_1>.', placeholders: ['<EMAIL_ADDRESS_1>', '<PERSON_1>'] });
  assert.deepEqual(restorePlaceholders('Ingrid Solbergs house', values).placeholders, [], 'whole words only');

  const res = runCheck('Booked for Ingrid Solberg.', { direction: 'output', policy: DEFAULT_POLICY });
  applyDeidLeak(res, 'Booked for Ingrid Solberg.', values, DEFAULT_POLICY);
  assert.equal(res.result.decision, 'redact');
  assert.equal(res.result.rewritten_content, 'Booked for <PERSON_1>.');
  assert.match(res.result.scanner_results.find((s) => s.scanner_name === 'deidentification')!.detail, /1 value the turn de-identified \(PERSON\)/);
  assert.ok(!JSON.stringify(res.result.scanner_results).includes('Ingrid'), 'no value in the results');

  const blocked = runCheck('Booked for Ingrid Solberg.', { direction: 'output', policy: DEFAULT_POLICY });
  applyDeidLeak(blocked, 'Booked for Ingrid Solberg.', values, resolvePolicy(DEFAULT_POLICY, { pii: { output: 'block' } }));
  assert.equal(blocked.result.decision, 'block');
  const none = runCheck('Booked for <PERSON_1>.', { direction: 'output', policy: DEFAULT_POLICY });
  applyDeidLeak(none, 'Booked for <PERSON_1>.', values, DEFAULT_POLICY);
  assert.equal(none.result.decision, 'allow');
  assert.equal(none.result.scanner_results.some((s) => s.scanner_name === 'deidentification'), false);
});
