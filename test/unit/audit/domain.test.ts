/**
 * Audit use cases over fake ports (services/audit/src/domain): who may see which turn, the
 * service-account rule, artifact upload decoding, the receipt cursor, and how the key provider is
 * chosen from the runtime. No SQLite: the ports are plain objects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDomainError } from '../../../services/shared/kit/domain-error.js';
import { ownerFilter, requireServiceAccount, seesWholeTenant } from '../../../services/audit/src/domain/access.js';
import { decodeUpload } from '../../../services/audit/src/domain/artifacts.js';
import { keyRingFromConfig, liveKeyProvider, resolveKeyProvider } from '../../../services/audit/src/domain/keys.js';
import type { ChainWriter } from '../../../services/audit/src/domain/chain-writer.js';
import type { TurnRecord, TurnStore, TurnEventStore, EnvelopeStore, AuditLogStore } from '../../../services/audit/src/domain/ports.js';
import { ReceiptService } from '../../../services/audit/src/domain/receipts.js';
import { TurnService } from '../../../services/audit/src/domain/turns.js';
import type { AuditKeyMaterial } from '../../../services/shared/runtime.js';

const KEY = 'k1-9f8e7d6c5b4a39281706f5e4d3c2b1a0-audit-key';
const KEY2 = 'k2-0a1b2c3d4e5f60718293a4b5c6d7e8f9-audit-key';
const material = (signingKey: string, keyVersion = 'v1'): AuditKeyMaterial => ({ signingKey, keyVersion, previousSigningKey: null, previousKeyVersion: null });

const ADMIN = { id: 'admin-1', roles: ['admin', 'user'], auth_method: 'password' as const };
const SERVICE = { id: 'service:gateway', roles: ['service-account'], auth_method: 'service' as const };
const OWNER = { id: 'user-1', roles: ['user'], auth_method: 'password' as const };
const OTHER = { id: 'user-2', roles: ['user'], auth_method: 'password' as const };
/** A user whose principal claims the service role (issue 11 item 1): not a service. */
const FORGED = { id: 'user-3', roles: ['service-account', 'user'], auth_method: 'password' as const };

function turn(over: Partial<TurnRecord> = {}): TurnRecord {
  return {
    tenant_id: 't', turn_id: 'T1', receipt_id: 'R1', principal_id: 'user-1', created_ms: 0, terminal: null, status: 'pending',
    sealed_at: null, sealed_seq: null, verified_at: null, verified_by: null, ...over,
  };
}

function fakePorts(turns: TurnRecord[]) {
  const sealedCalls: Array<{ before: number; limit: number; principalId: string | null }> = [];
  const turnStore = {
    get: (tenantId: string, turnId: string) => turns.find((t) => t.tenant_id === tenantId && t.turn_id === turnId),
    sealed: (_tenantId: string, before: number, limit: number, principalId: string | null) => { sealedCalls.push({ before, limit, principalId }); return []; },
  } as unknown as TurnStore;
  const events = { ofTurn: () => [] } as unknown as TurnEventStore;
  const envelopes = { get: () => undefined } as unknown as EnvelopeStore;
  const log = {} as AuditLogStore;
  return { turns: turnStore, events, envelopes, log, sealedCalls };
}

function code(fn: () => unknown): string {
  try { fn(); } catch (err) { return isDomainError(err) ? err.code : `not a domain error: ${String(err)}`; }
  return 'no error';
}

/** `code` for the domain's async use cases (issue 21 item 1: the ports may answer later). */
async function codeOf(fn: () => Promise<unknown>): Promise<string> {
  try { await fn(); } catch (err) { return isDomainError(err) ? err.code : `not a domain error: ${String(err)}`; }
  return 'no error';
}

test('admins and service accounts see the whole tenant; users their own turns', () => {
  assert.equal(seesWholeTenant(ADMIN), true);
  assert.equal(seesWholeTenant(SERVICE), true);
  assert.equal(seesWholeTenant(OWNER), false);
  assert.equal(ownerFilter(ADMIN), null);
  assert.equal(ownerFilter(OWNER), 'user-1');
});

test('visibleTurn answers turn_not_found for an unknown turn and for another user\'s turn', async () => {
  const ports = fakePorts([turn()]);
  const svc = new TurnService(ports, {} as ChainWriter);
  assert.equal((await svc.visibleTurn('t', OWNER, 'T1')).turn_id, 'T1');
  assert.equal((await svc.visibleTurn('t', ADMIN, 'T1')).turn_id, 'T1');
  assert.equal(await codeOf(() => svc.visibleTurn('t', OTHER, 'T1')), 'turn_not_found');
  assert.equal(await codeOf(() => svc.visibleTurn('t', ADMIN, 'T2')), 'turn_not_found');
  assert.equal(await codeOf(() => svc.visibleTurn('other-tenant', ADMIN, 'T1')), 'turn_not_found');
  const view = await svc.view('t', OWNER, 'T1');
  assert.equal(view.receipt.status, 'pending');
  assert.equal(view.envelope, null);
});

test('receipt routes check visibility before the seal: a stranger learns nothing, the owner hears not sealed', async () => {
  const ports = fakePorts([turn()]);
  const turns = new TurnService(ports, {} as ChainWriter);
  const receipts = new ReceiptService(ports, () => keyRingFromConfig(material(KEY)), turns);
  assert.equal(await codeOf(() => receipts.detailFor('t', OTHER, 'T1')), 'turn_not_found');
  assert.equal(await codeOf(() => receipts.proofFor('t', OWNER, 'T1')), 'receipt_not_sealed');
  assert.equal(await codeOf(() => receipts.bundleFor('t', ADMIN, 'T1')), 'receipt_not_sealed');
  assert.equal(await codeOf(() => receipts.verifyFor('t', OWNER, 'T1')), 'receipt_not_sealed');
});

test('the receipt list narrows to the caller unless privileged, and refuses a foreign cursor', async () => {
  const ports = fakePorts([]);
  const receipts = new ReceiptService(ports, () => keyRingFromConfig(material(KEY)), new TurnService(ports, {} as ChainWriter));
  await receipts.listFor('t', OWNER, 10, undefined);
  await receipts.listFor('t', SERVICE, 10, Buffer.from('42').toString('base64url'));
  assert.deepEqual(ports.sealedCalls, [
    { before: Number.MAX_SAFE_INTEGER, limit: 11, principalId: 'user-1' },
    { before: 42, limit: 11, principalId: null },
  ]);
  try {
    await receipts.listFor('t', ADMIN, 10, '!!');
    assert.fail('expected an error');
  } catch (err) {
    assert.ok(isDomainError(err));
    assert.equal(err.code, 'invalid_request');
    assert.deepEqual(err.extra, { field: 'querystring.cursor' });
  }
});

test('only service accounts pass requireServiceAccount', () => {
  assert.equal(requireServiceAccount(SERVICE), SERVICE);
  assert.equal(code(() => requireServiceAccount(ADMIN)), 'service_account_required');
  assert.equal(code(() => requireServiceAccount(FORGED)), 'service_account_required');
  assert.equal(seesWholeTenant(FORGED), false);
});

test('an upload carries exactly one of content and content_base64, and the base64 must be well formed', () => {
  const base = { turn_id: 'T1', event_id: 'e1', kind: 'prompt' };
  const text = decodeUpload({ ...base, content: 'héllo' });
  assert.equal(Buffer.from(text.bytes).toString('utf8'), 'héllo');
  assert.equal(text.contentType, 'text/plain; charset=utf-8');
  const bin = decodeUpload({ ...base, content_base64: Buffer.from([0, 1, 2]).toString('base64') });
  assert.deepEqual([...bin.bytes], [0, 1, 2]);
  assert.equal(bin.contentType, 'application/octet-stream');
  assert.equal(decodeUpload({ ...base, content: '{}', content_type: 'application/json' }).contentType, 'application/json');
  assert.equal(code(() => decodeUpload(base)), 'invalid_request');
  assert.equal(code(() => decodeUpload({ ...base, content: 'a', content_base64: 'YQ==' })), 'invalid_request');
  assert.equal(code(() => decodeUpload({ ...base, content_base64: 'YQ=' })), 'invalid_request');
  assert.equal(code(() => decodeUpload({ ...base, content_base64: '***=' })), 'invalid_request');
});

test('the key provider: runtime keys first, then live material, else the config; bad config keys refuse', () => {
  const cfg = material(KEY);
  assert.equal(resolveKeyProvider(cfg, {})().active.key, KEY);
  const injected = keyRingFromConfig(material(KEY2, 'v2'));
  assert.equal(resolveKeyProvider(cfg, { auditKeys: () => injected })().active.version, 'v2');
  const live = material(KEY2, 'v9');
  assert.equal(resolveKeyProvider(cfg, { auditKeyMaterial: () => live })().active.version, 'v9');
  assert.throws(() => resolveKeyProvider(material('short'), { auditKeys: () => injected }), /AUDIT_SIGNING_KEY must be at least 32/);
});

test('live keys rebuild on new material and keep the last good ring when a bad key is rotated in', () => {
  let m = material(KEY, 'v1');
  const keys = liveKeyProvider(() => m);
  const first = keys();
  assert.equal(keys(), first, 'same material, same ring');
  m = material(KEY2, 'v2');
  assert.equal(keys().active.version, 'v2');
  m = material('changeme', 'v3');
  assert.equal(keys().active.version, 'v2');
  assert.throws(() => liveKeyProvider(() => material('short'))(), /at least 32/);
});
