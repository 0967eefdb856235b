/**
 * The audit contracts are the one door (DESIGN.md "Inside a service"): Node-free and importing
 * only contract modules, with one error table whose codes are snake_case and statuses HTTP errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AUDIT_ERRORS, EnvelopePayloadSchema, LeafEventSchema, CHECK_IDS } from '../../../services/audit/src/contracts.js';
import { ENVELOPE_PAYLOAD_KEYS, LEAF_EVENT_KEYS } from '../../../services/audit/src/verifier/format.js';
import { REPO_ROOT } from '../../helpers/audit.js';

const SRC = resolve(REPO_ROOT, 'services/audit/src');
const files = ['contracts.ts', ...readdirSync(join(SRC, 'contracts')).map((f) => `contracts/${f}`)];

test('contracts import nothing from Node and nothing but typebox, other contracts and the kit\'s error types', () => {
  for (const f of files) {
    const text = readFileSync(join(SRC, f), 'utf8');
    for (const m of text.matchAll(/from '([^']+)'/g)) {
      const spec = m[1]!;
      const ok = spec === 'typebox' || spec.startsWith('./') || /shared\/(kit\/(domain-error|schema|typebox)|runtime)\.js$/.test(spec);
      assert.ok(ok, `${f} imports ${spec}`);
      assert.ok(!spec.startsWith('node:'), `${f} imports ${spec}`);
    }
  }
});

test('one status per error code', () => {
  for (const [code, status] of Object.entries(AUDIT_ERRORS)) {
    assert.match(code, /^[a-z][a-z0-9_]*$/);
    assert.ok(Number.isInteger(status) && status >= 400 && status < 600, code);
  }
});

test('the wire schemas carry exactly the receipt format v1 keys', () => {
  assert.deepEqual(Object.keys(LeafEventSchema.properties), [...LEAF_EVENT_KEYS]);
  assert.deepEqual(Object.keys(EnvelopePayloadSchema.properties).sort(), [...ENVELOPE_PAYLOAD_KEYS].sort());
  assert.deepEqual(Object.keys(EnvelopePayloadSchema.properties), [...ENVELOPE_PAYLOAD_KEYS].sort(), 'payload answered in JCS key order');
  assert.equal(CHECK_IDS.length, 8);
});
