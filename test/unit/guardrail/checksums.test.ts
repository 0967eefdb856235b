/** Check digits behind the card, IBAN and Spanish id recognisers. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ibanValid, luhnValid, shannonEntropy, spanishIdValid } from '../../../services/guardrail/src/domain/checksums.js';

test('Luhn accepts valid card numbers and rejects one-digit changes', () => {
  for (const n of ['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117', '79927398713']) assert.ok(luhnValid(n), n);
  for (const n of ['4111111111111112', '5555555555554445', '378282246310006', '79927398710', '', '12a4']) assert.ok(!luhnValid(n), n);
});

test('IBAN mod-97 and country length', () => {
  for (const s of ['GB82 WEST 1234 5698 7654 32', 'DE89370400440532013000', 'fr1420041010050500013m02606', 'NL91ABNA0417164300', 'CH9300762011623852957']) assert.ok(ibanValid(s), s);
  assert.ok(!ibanValid('GB82 WEST 1234 5698 7654 33'), 'wrong check digits');
  assert.ok(!ibanValid('DE8937040044053201300'), 'wrong length for DE');
  assert.ok(!ibanValid('XX00'), 'too short');
});

test('Spanish DNI/NIE check letter, entropy', () => {
  assert.ok(spanishIdValid('12345678Z'));
  assert.ok(spanishIdValid('X1234567L'));
  assert.ok(!spanishIdValid('12345678A'));
  assert.ok(shannonEntropy('aaaaaaaa') === 0);
  assert.ok(shannonEntropy('a8F#k2Lq9Zx1') > 3);
});
