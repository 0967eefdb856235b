/**
 * Golden receipt bundles (test/fixtures/audit/golden, data files): good bundles verify with their
 * keys, each tampered bundle fails, and the checks that must catch it do. Also the detail + proof
 * split input, and typed error codes on malformed input.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeHashProvider } from '../../../services/audit/src/domain/keys.js';
import { verifyReceiptJson, pureHashProvider, VerificationError, parseBundle } from '../../../services/audit/src/verifier/index.js';
import { FIXTURE_DIR } from '../../helpers/audit.js';

interface Case { name: string; file: string; keys: Record<string, string>; ok: boolean; must_fail: string[] }
const DIR = join(FIXTURE_DIR, 'golden');
const manifest = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as { cases: Case[] };
const load = (f: string): unknown => JSON.parse(readFileSync(join(DIR, f), 'utf8'));

for (const c of manifest.cases) {
  test(`golden ${c.name}`, () => {
    for (const hash of [pureHashProvider, nodeHashProvider]) {
      const r = verifyReceiptJson({ bundle: load(c.file) }, { keys: c.keys, hash });
      assert.equal(r.ok, c.ok, JSON.stringify(r.checks.filter((x) => !x.ok).map((x) => [x.id, x.detail])));
      for (const id of c.must_fail) assert.equal(r.checks.find((x) => x.id === id)?.ok, false, `${id} must fail`);
      assert.equal(r.checks.length, 8);
    }
  });
}

test('detail and proof given separately verify like the bundle', () => {
  const b = load('good-rotation.bundle.json') as { detail: unknown; proof: unknown };
  const r = verifyReceiptJson({ detail: b.detail, proof: b.proof }, { keys: manifest.cases.find((c) => c.name === 'good-rotation')!.keys });
  assert.ok(r.ok);
});

test('malformed input is a typed MALFORMED error, and nothing else passes', () => {
  const r = verifyReceiptJson({ bundle: { detail: {}, proof: {} } }, { keys: {} });
  assert.equal(r.ok, false);
  assert.equal(r.checks[0]!.errors[0]!.code, 'MALFORMED');
  assert.ok(r.checks.every((c) => !c.ok));
  assert.throws(() => parseBundle([]), (e: unknown) => e instanceof VerificationError && e.code === 'MALFORMED');
});

test('a missing key version is UNKNOWN_KEY_VERSION', () => {
  const r = verifyReceiptJson({ bundle: load('good-v2.bundle.json') }, { keys: { v1: 'x'.repeat(40) } });
  assert.equal(r.ok, false);
  assert.equal(r.checks.find((c) => c.id === 'envelope_hmac')!.errors[0]!.code, 'UNKNOWN_KEY_VERSION');
});
