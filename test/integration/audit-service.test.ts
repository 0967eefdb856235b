/**
 * The audit service end to end on port 0 with a temp data dir: append, listing, chain verify,
 * turn events, sealing, receipts, proofs, bundles, server-side verify, artifacts and replay.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { start } from '../../services/audit/src/index.js';
import { verifyReceiptJson } from '../../services/audit/src/verifier/index.js';
import { signStamp } from '../../services/shared/identity/principal.js';
import { TurnEventClient } from '../../services/shared/events/turn-events.js';
import {
  ADMIN, SERVICE, USER, auditConfig, call, event, headersFor, KEY_V1, newId, principal, removeDir, PRINCIPAL_KEY, TENANT,

} from '../helpers/audit.js';

async function boot(t: import('node:test').TestContext, overrides = {}) {
  const cfg = auditConfig(overrides);
  const svc = await start(cfg);
  t.after(async () => { await svc.close(); removeDir(cfg.dataDir); });
  return { cfg, svc, base: `http://127.0.0.1:${svc.port}` };
}

async function sealedTurn(base: string, n = 3): Promise<string> {
  const turn = newId();
  const evs = [event(turn, 'turn_started', { path: '/v1/x' })];
  for (let i = 0; i < n; i++) evs.push(event(turn, 'model_invoked', { i }, { emitter_service: 'agent-runtime' }));
  evs.push(event(turn, 'turn_sealed', { status: 200 }));
  const r = await call(base, 'POST', '/v1/turns/events', SERVICE(), { events: evs });
  assert.equal(r.status, 200);
  assert.equal(r.body.accepted, evs.length);
  return turn;
}

test('refuses to start with a short or placeholder signing key', async () => {
  await assert.rejects(start(auditConfig({ signingKey: 'short' })), /AUDIT_SIGNING_KEY must be at least 32/);
  await assert.rejects(start(auditConfig({ signingKey: 'changeme-changeme-changeme-changeme-changeme' })), /placeholder/);
  await assert.rejects(start(auditConfig({ previousSigningKey: 'x'.repeat(40), previousKeyVersion: 'v0' })), /AUDIT_SIGNING_KEY_PREVIOUS is a placeholder/);
});

test('POST /v1/audit appends under the pinned tenant, chains rows, and 400s without tenant_id', async (t) => {
  const { base } = await boot(t);
  const a = await call(base, 'POST', '/v1/audit', USER(), { tenant_id: 'other', user_id: 'someone-else', action: 'doc.read', resource_type: 'doc', resource_id: 'd1', detail: { n: 1, password: 'hunter2' }, result: 'ok' });
  assert.equal(a.status, 201);
  assert.equal(a.body.seq, 1);
  assert.equal(a.body.tenant_id, TENANT);
  const b = await call(base, 'POST', '/v1/audit', SERVICE(), { action: 'x', user_id: 'u9' });
  assert.equal(b.body.seq, 2);
  assert.equal(b.body.previous_hash, a.body.chain_hash);

  const noTenant = headersFor({ ...principal('u', ['user']), tenant_id: '' });
  const c = await call(base, 'POST', '/v1/audit', noTenant, { action: 'x' });
  assert.equal(c.status, 400);
  assert.equal(c.body.code, 'tenant_missing');
  const bad = await call(base, 'POST', '/v1/audit', USER(), { detail: {} });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'invalid_request');

  const list = await call(base, 'GET', '/v1/admin/audit?limit=1', ADMIN());
  assert.equal(list.status, 200);
  assert.equal(list.body.items.length, 1);
  assert.equal(list.body.items[0].seq, 2);
  assert.equal(list.body.next_cursor, '1');
  const mine = await call(base, 'GET', '/v1/admin/audit?user_id=user-1', ADMIN());
  assert.equal(mine.body.items.length, 1);
  assert.equal(mine.body.items[0].user_id, 'user-1', 'a plain user is recorded as themselves');
  assert.equal(mine.body.items[0].detail.password, '[redacted]');
  assert.equal(mine.body.items[0].detail.result, 'ok');
  const svcRow = await call(base, 'GET', '/v1/admin/audit?action=x', ADMIN());
  assert.equal(svcRow.body.items[0].user_id, 'u9', 'service accounts attribute rows');
  assert.equal((await call(base, 'GET', '/v1/admin/audit', USER())).status, 403);

  const v = await call(base, 'GET', `/v1/admin/audit/verify?tenant_id=${TENANT}`, ADMIN());
  assert.deepEqual(v.body, { ok: true, checked: 2, failures: [] });
  assert.equal((await call(base, 'GET', '/v1/admin/audit/verify', ADMIN())).status, 400);
});

test('events seal into a receipt; bundle verifies offline; late events rejected; duplicates no-op', async (t) => {
  const { base } = await boot(t);
  const turn = newId();
  const started = event(turn, 'turn_started', {});
  let r = await call(base, 'POST', '/v1/turns/events', SERVICE(), { events: [started] });
  assert.deepEqual(r.body, { accepted: 1, duplicates: 0, rejected: [] });
  assert.equal((await call(base, 'GET', `/v1/receipts/${turn}`, USER())).status, 404);
  assert.equal((await call(base, 'GET', `/v1/receipts/${turn}/proof`, USER())).body.code, 'receipt_not_sealed');
  const pending = await call(base, 'GET', `/v1/turns/${turn}`, SERVICE());
  assert.equal(pending.body.receipt.status, 'pending');
  assert.equal(pending.body.receipt.sealed, false);

  // Users cannot post events.
  assert.equal((await call(base, 'POST', '/v1/turns/events', USER(), { events: [] })).status, 403);

  const sealed = event(turn, 'turn_sealed', { status: 200 });
  r = await call(base, 'POST', '/v1/turns/events', SERVICE(), { events: [started, { ...event(turn, 'tool_called'), tenant_id: 'evil' }, sealed, { bogus: 1 }] });
  assert.equal(r.body.accepted, 2);
  assert.equal(r.body.duplicates, 1);
  assert.deepEqual(r.body.rejected, [{ event_id: null, reason: 'invalid_event_id' }]);
  r = await call(base, 'POST', '/v1/turns/events', SERVICE(), { events: [event(turn, 'model_response'), sealed] });
  assert.equal(r.body.rejected[0].reason, 'turn_sealed');
  assert.equal(r.body.duplicates, 1);

  const detail = await call(base, 'GET', `/v1/receipts/${turn}`, USER());
  assert.equal(detail.status, 200);
  assert.equal(detail.body.receipt.status, 'sealed');
  assert.equal(detail.body.receipt.tier, 'attestable');
  assert.equal(detail.body.receipt.receipt_url, `/v1/receipts/${turn}`);
  assert.equal(detail.body.envelope.payload.status, 'completed');
  assert.equal(detail.body.envelope.payload.seal_reason, 'terminal_event');
  assert.equal(detail.body.events.length, 3);
  assert.ok(detail.body.events.every((e: { tenant_id: string }) => e.tenant_id === TENANT), 'events pinned to the tenant');
  // Another user cannot see it.
  assert.equal((await call(base, 'GET', `/v1/receipts/${turn}`, USER('user-2'))).status, 404);

  const bundle = await call(base, 'GET', `/v1/receipts/${turn}/bundle`, USER());
  const report = verifyReceiptJson({ bundle: bundle.body }, { keys: { v1: KEY_V1 } });
  assert.ok(report.ok, JSON.stringify(report.checks.filter((c) => !c.ok)));
  const wrong = verifyReceiptJson({ bundle: bundle.body }, { keys: { v1: KEY_V1 + 'x' } });
  assert.equal(wrong.ok, false);

  const proof = await call(base, 'GET', `/v1/receipts/${turn}/proof`, USER());
  assert.equal(proof.body.audit_chain.suffix[0].seq, proof.body.envelope.audit_seq);
  const direct = await call(base, 'GET', `/v1/turns/${turn}/proof`, SERVICE());
  assert.deepEqual(direct.body, proof.body);

  const v = await call(base, 'POST', `/v1/receipts/${turn}/verify`, USER(), {});
  assert.equal(v.status, 200);
  assert.equal(v.body.ok, true);
  assert.equal(v.body.receipt.status, 'verified');
  assert.equal(v.body.verified_by, 'user-1');
  assert.ok(v.body.verified_at);

  const failedTurn = newId();
  await call(base, 'POST', '/v1/turns/events', SERVICE(), { events: [event(failedTurn, 'turn_started'), event(failedTurn, 'turn_failed')] });
  const fd = await call(base, 'GET', `/v1/receipts/${failedTurn}`, ADMIN());
  assert.equal(fd.body.envelope.payload.status, 'failed');
});

test('receipts list newest first with a cursor', async (t) => {
  const { base } = await boot(t);
  const turns = [];
  for (let i = 0; i < 5; i++) turns.push(await sealedTurn(base, 1));
  const p1 = await call(base, 'GET', '/v1/receipts?limit=2', USER());
  assert.deepEqual(p1.body.items.map((x: { turn_id: string }) => x.turn_id), [turns[4], turns[3]]);
  assert.ok(p1.body.next_cursor);
  const p2 = await call(base, 'GET', `/v1/receipts?limit=2&cursor=${p1.body.next_cursor}`, USER());
  assert.deepEqual(p2.body.items.map((x: { turn_id: string }) => x.turn_id), [turns[2], turns[1]]);
  const p3 = await call(base, 'GET', `/v1/receipts?limit=2&cursor=${p2.body.next_cursor}`, USER());
  assert.deepEqual(p3.body.items.map((x: { turn_id: string }) => x.turn_id), [turns[0]]);
  assert.equal(p3.body.next_cursor, undefined);
  assert.equal((await call(base, 'GET', '/v1/receipts', USER('stranger'))).body.items.length, 0);
  assert.equal((await call(base, 'GET', '/v1/receipts?cursor=zz', USER())).status, 400);
});

test('background sealer seals stalled turns with watermark_timeout', async (t) => {
  const { base } = await boot(t, { sealIntervalSeconds: 0.1, sealWatermarkSeconds: 0.2, sealBatchLimit: 2 });
  const ids = [newId(), newId(), newId()];
  for (const id of ids) await call(base, 'POST', '/v1/turns/events', SERVICE(), { events: [event(id, 'turn_started'), event(id, 'model_invoked')] });
  const deadline = Date.now() + 5000;
  let done = 0;
  while (Date.now() < deadline) {
    done = 0;
    for (const id of ids) if ((await call(base, 'GET', `/v1/receipts/${id}`, ADMIN())).status === 200) done++;
    if (done === ids.length) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(done, ids.length);
  const d = await call(base, 'GET', `/v1/receipts/${ids[0]}`, ADMIN());
  assert.equal(d.body.envelope.payload.seal_reason, 'watermark_timeout');
  assert.equal(d.body.envelope.payload.status, 'failed');
  const v = await call(base, 'GET', `/v1/admin/audit/verify?tenant_id=${TENANT}`, ADMIN());
  assert.equal(v.body.ok, true);
  assert.equal(v.body.checked, 3);
});

test('an admin seals an open turn manually; a second seal is 409, an unknown turn 404, a user 403', async (t) => {
  const { base } = await boot(t);
  const id = newId();
  await call(base, 'POST', '/v1/turns/events', SERVICE(), { events: [event(id, 'turn_started'), event(id, 'model_invoked')] });
  assert.equal((await call(base, 'GET', `/v1/receipts/${id}`, ADMIN())).status, 404, 'pending before the seal');
  const denied = await call(base, 'POST', `/v1/admin/audit/turns/${id}/seal`, USER(), {});
  assert.equal(denied.status, 403, JSON.stringify(denied.body));
  const r = await call(base, 'POST', `/v1/admin/audit/turns/${id}/seal`, ADMIN(), {});
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { turn_id: id, sealed: true, seal_reason: 'manual' });
  const d = await call(base, 'GET', `/v1/receipts/${id}`, ADMIN());
  assert.equal(d.status, 200);
  assert.equal(d.body.envelope.payload.seal_reason, 'manual');
  assert.equal(d.body.envelope.payload.event_count, 2);
  const again = await call(base, 'POST', `/v1/admin/audit/turns/${id}/seal`, ADMIN(), {});
  assert.equal(again.status, 409);
  assert.equal(again.body.code, 'already_sealed');
  const missing = await call(base, 'POST', `/v1/admin/audit/turns/${newId()}/seal`, ADMIN(), {});
  assert.equal(missing.status, 404);
  const v = await call(base, 'GET', `/v1/admin/audit/verify?tenant_id=${TENANT}`, ADMIN());
  assert.equal(v.body.ok, true);
});

test('a row changed in the SQLite file makes verify answer ok:false naming the row', async (t) => {
  const { base, cfg } = await boot(t);
  for (let i = 0; i < 5; i++) await call(base, 'POST', '/v1/audit', SERVICE(), { action: 'a', detail: { i } });
  const db = new Database(join(cfg.dbDir, 'audit.sqlite'));
  db.exec('DROP TRIGGER audit_log_no_update');
  db.prepare(`UPDATE audit_log SET detail = '{"i":99}' WHERE seq = 3`).run();
  db.close();
  const v = await call(base, 'GET', `/v1/admin/audit/verify?tenant_id=${TENANT}`, ADMIN());
  assert.equal(v.body.ok, false);
  assert.ok(v.body.failures.some((f: { check: string; seq: number; id: number }) => f.check === 'hmac' && f.seq === 3 && f.id === 3), JSON.stringify(v.body));
  // With limit the newest rows are checked.
  const lim = await call(base, 'GET', `/v1/admin/audit/verify?tenant_id=${TENANT}&limit=2`, ADMIN());
  assert.equal(lim.body.ok, true);
  assert.equal(lim.body.checked, 2);
});

test('triggers make UPDATE and DELETE of audit rows no-ops', async (t) => {
  const { base, cfg } = await boot(t);
  await call(base, 'POST', '/v1/audit', SERVICE(), { action: 'a' });
  const db = new Database(join(cfg.dbDir, 'audit.sqlite'));
  db.prepare(`UPDATE audit_log SET action = 'b'`).run();
  db.prepare('DELETE FROM audit_log').run();
  db.prepare('DELETE FROM chain_head').run();
  assert.equal(db.prepare('SELECT action FROM audit_log').pluck().get(), 'a');
  assert.equal(db.prepare('SELECT count(*) FROM chain_head').pluck().get(), 1);
  db.close();
});

test('artifacts are stored content-addressed and replayed with their events', async (t) => {
  const { base } = await boot(t);
  const turn = newId();
  const ev = event(turn, 'prompt_generated', { sha256: 'x' });
  await call(base, 'POST', '/v1/turns/events', SERVICE(), { events: [event(turn, 'turn_started'), ev] });
  const up = await call(base, 'POST', '/v1/audit/artifacts', SERVICE(), { turn_id: turn, event_id: ev.event_id, kind: 'prompt', content: 'hello prompt' });
  assert.equal(up.status, 201);
  assert.equal(up.body.size, 12);
  const again = await call(base, 'POST', '/v1/audit/artifacts', SERVICE(), { turn_id: turn, event_id: ev.event_id, kind: 'prompt', content: 'hello prompt' });
  assert.equal(again.status, 200);
  const conflict = await call(base, 'POST', '/v1/audit/artifacts', SERVICE(), { turn_id: turn, event_id: ev.event_id, kind: 'prompt', content: 'other' });
  assert.equal(conflict.status, 409);
  const mismatch = await call(base, 'POST', '/v1/audit/artifacts', SERVICE(), { turn_id: turn, event_id: ev.event_id, kind: 'model', content_base64: 'aGk=', sha256: '0'.repeat(64) });
  assert.equal(mismatch.body.code, 'digest_mismatch');
  assert.equal((await call(base, 'POST', '/v1/audit/artifacts', USER(), { turn_id: turn, event_id: ev.event_id, kind: 'prompt', content: 'x' })).status, 403);

  const rp = await call(base, 'GET', `/v1/audit/turns/${turn}/replay?tenant_id=ignored`, USER());
  assert.equal(rp.status, 200);
  assert.equal(rp.body.events.length, 2);
  const withArt = rp.body.events.find((e: { event_id: string }) => e.event_id === ev.event_id);
  assert.equal(withArt.artifacts[0].sha256, up.body.sha256);
  const res = await fetch(`${base}${withArt.artifacts[0].url}`, { headers: USER() });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), 'hello prompt');
  assert.equal(res.headers.get('x-content-sha256'), up.body.sha256);
  assert.equal((await call(base, 'GET', `/v1/audit/turns/${turn}/artifacts/${ev.event_id}/nope`, USER())).status, 404);
  assert.equal((await call(base, 'GET', `/v1/audit/turns/${turn}/replay`, USER('user-2'))).status, 404);
});

test('principal header is required', async (t) => {
  const { base } = await boot(t);
  assert.equal((await call(base, 'GET', '/v1/receipts', {})).status, 401);
  const forged = { 'x-svc-principal': signStamp(principal('admin-1', ['admin']), ['not-the-key-' + PRINCIPAL_KEY]) };
  assert.equal((await call(base, 'GET', '/v1/admin/audit', forged)).status, 401);
});

test('the shared turn-event client (what the gateway uses) gets its turns sealed', async (t) => {
  const { base } = await boot(t);
  const client = new TurnEventClient({ service: 'gateway', auditUrl: base, tenantId: TENANT, principalKeys: [PRINCIPAL_KEY] });
  t.after(() => client.close());
  const turn = newId();
  client.emit(turn, 'user-1', 'turn_started', { method: 'GET', path: '/v1/overview' });
  client.emit(turn, 'user-1', 'turn_sealed', { status: 200 });
  assert.ok(await client.drain(5000));
  const d = await call(base, 'GET', `/v1/receipts/${turn}/bundle`, USER());
  assert.equal(d.status, 200);
  assert.ok(verifyReceiptJson({ bundle: d.body }, { keys: { v1: KEY_V1 } }).ok);
});
