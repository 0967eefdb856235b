/**
 * RFC 8785 vectors (cyberphone/json-canonicalization testdata, read in place from
 * ../shared/assets/vectors/jcs): every input canonicalises to its output byte for byte, and to the
 * expected UTF-8 hex. The receipt format's canonical JSON is this function.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jcs } from '../../../services/shared/identity/jcs.js';
import { SHARED_ASSETS } from '../../helpers/audit.js';

const DIR = join(SHARED_ASSETS, 'vectors/jcs');

test('JCS vectors: output bytes and hex', () => {
  const names = readdirSync(join(DIR, 'input')).filter((f) => f.endsWith('.json'));
  assert.ok(names.length >= 6);
  for (const name of names) {
    const input = JSON.parse(readFileSync(join(DIR, 'input', name), 'utf8')) as unknown;
    const got = Buffer.from(jcs(input), 'utf8');
    assert.deepEqual(got, readFileSync(join(DIR, 'output', name)), name);
    const hex = readFileSync(join(DIR, 'outhex', name.replace(/\.json$/, '.txt')), 'utf8').replace(/\s+/g, '').toLowerCase();
    assert.equal(got.toString('hex'), hex, name);
  }
});

test('JCS is idempotent over its own output', () => {
  for (const name of readdirSync(join(DIR, 'output'))) {
    const out = readFileSync(join(DIR, 'output', name), 'utf8');
    assert.equal(jcs(JSON.parse(out)), out, name);
  }
});
