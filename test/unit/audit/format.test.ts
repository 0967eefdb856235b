/**
 * Receipt format v1 formulas: the hand-ordered signed_payload equals generic JCS of the same object
 * (random and adversarial values), chain link text equals JCS, genesis hash, leaf order, and event
 * normalisation (occurred_at made canonical so string order is time order).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { jcs } from '../../../services/shared/identity/jcs.js';
import {
  chainLinkText, compareEvents, genesisHash, signedPayloadText, signedPayloadTextGeneric, type SignedRowFields,
} from '../../../services/audit/src/verifier/format.js';
import { normaliseEvent } from '../../../services/audit/src/domain/events.js';
import { redactSecrets } from '../../../services/audit/src/domain/redact.js';

const WEIRD = ['', 'plain', 'quote " and \\ backslash', 'ctl \u0000\u001f\u007f', 'ünïcødé €', '\u2028\u2029', '😀 astral', '\ud800 lone', '</script>'];

test('fast signed_payload equals generic JCS', () => {
  let k = 0;
  const pick = <T>(xs: T[]): T => xs[(k++ * 7919) % xs.length]!;
  for (let i = 0; i < 500; i++) {
    const f: SignedRowFields = {
      tenant_id: pick(WEIRD), seq: i * 97 + 1, timestamp: new Date(i * 1e9).toISOString(), user_id: i % 3 ? pick(WEIRD) : null, action: pick(WEIRD),
      resource_type: i % 2 ? null : pick(WEIRD), resource_id: pick(WEIRD), detail_type: i % 4 ? 'x' : null,
      detail: { b: [1, 2.5, -0, 1e21, 1e-7, pick(WEIRD)], a: { z: null, y: true, [pick(WEIRD)]: 'k' } }, previous_hash: 'a'.repeat(64),
      agent_id: i % 5 ? null : pick(WEIRD), agent_chain: i % 2 ? null : [pick(WEIRD), { x: 1 }], delegated_by: i % 7 ? null : pick(WEIRD),
      key_version: pick(['v1', 'v2', 'k é']),
    };
    assert.equal(signedPayloadText(f), signedPayloadTextGeneric(f));
  }
});

test('chain link text and genesis', () => {
  assert.equal(chainLinkText(42, 'ab', 'cd'), jcs({ signature: 'cd', id: 42, previous_hash: 'ab' }));
  assert.equal(genesisHash('t1'), createHash('sha256').update('{"tenant_id":"t1","type":"genesis"}').digest('hex'));
});

test('events normalise and order by (occurred_at, emitter_service, sequence_in_service, event_id)', () => {
  const base = { turn_id: 'T1', principal_id: 'u', emitter_service: 'gateway', sequence_in_service: 1, payload_type: 'turn_started', payload_json: '{}' };
  const a = normaliseEvent({ ...base, event_id: 'A', occurred_at: '2024-01-01T00:00:00Z', tenant_id: 'evil' }, 'pinned');
  const b = normaliseEvent({ ...base, event_id: 'B', occurred_at: '2024-01-01T00:00:00.5Z' }, 'pinned');
  const c = normaliseEvent({ ...base, event_id: 'C', occurred_at: '2024-01-01T01:00:00.000+01:00', emitter_service: 'agent-runtime' }, 'pinned');
  assert.ok(a.ok && b.ok && c.ok);
  if (!a.ok || !b.ok || !c.ok) return;
  assert.equal(a.event.occurred_at, '2024-01-01T00:00:00.000Z');
  assert.equal(a.event.tenant_id, 'pinned');
  assert.equal(a.event.emitter_instance, null);
  assert.deepEqual([b.event, a.event, c.event].sort(compareEvents).map((e) => e.event_id), ['C', 'A', 'B']);
  assert.equal(normaliseEvent({ ...base, event_id: 'D', occurred_at: 'yesterday' }, 'p').ok, false);
  assert.deepEqual(normaliseEvent({ ...base, event_id: 'E', occurred_at: '2024-01-01T00:00:00Z', payload_json: '{' }, 'p'), { ok: false, event_id: 'E', reason: 'invalid_payload_json' });
  assert.deepEqual(normaliseEvent({ ...base, event_id: 'F', occurred_at: '2024-01-01T00:00:00Z', payload_type: 'nope' }, 'p'), { ok: false, event_id: 'F', reason: 'invalid_payload_type' });
});

test('secrets are redacted from detail at any depth', () => {
  assert.deepEqual(redactSecrets({ a: { password: 'p', db_password: 'q', tokens: 5, nested: [{ api_key: 'k' }] } }),
    { a: { password: '[redacted]', db_password: '[redacted]', tokens: 5, nested: [{ api_key: '[redacted]' }] } });
});
