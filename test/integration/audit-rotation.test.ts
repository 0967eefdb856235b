/**
 * Key rotation: after rotating AUDIT_SIGNING_KEY (restart with the old key as
 * AUDIT_SIGNING_KEY_PREVIOUS, or live through the key provider without a restart), old and new
 * receipts both verify, offline with `scripts/svc-verify` and server-side, and the whole chain
 * verifies. Also the CLI's verdicts and exit codes on a real bundle.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { start } from '../../services/audit/src/index.js';
import type { KeyRing } from '../../services/audit/src/contracts.js';
import { ADMIN, KEY_V1, KEY_V2, REPO_ROOT, SERVICE, TENANT, auditConfig, call, event, newId, removeDir } from '../helpers/audit.js';

async function sealTurn(base: string): Promise<string> {
  const turn = newId();
  const r = await call(base, 'POST', '/v1/turns/events', SERVICE(), { events: [event(turn, 'turn_started'), event(turn, 'tool_called', { tool: 'x' }), event(turn, 'turn_sealed')] });
  assert.equal(r.body.accepted, 3);
  return turn;
}

function svcVerify(args: string[]): { code: number; out: string } {
  const r = spawnSync(join(REPO_ROOT, 'scripts/svc-verify'), args, { encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout + r.stderr };
}

test('rotation by restart: old and new receipts verify, whole chain verifies', async (t) => {
  const cfg1 = auditConfig();
  t.after(() => removeDir(cfg1.dataDir));
  let svc = await start(cfg1);
  let base = `http://127.0.0.1:${svc.port}`;
  const oldTurn = await sealTurn(base);
  await call(base, 'POST', '/v1/audit', SERVICE(), { action: 'before' });
  await svc.close();

  const cfg2 = auditConfig({ signingKey: KEY_V2, keyVersion: 'v2', previousSigningKey: KEY_V1, previousKeyVersion: 'v1' }, cfg1.dataDir);
  svc = await start(cfg2);
  t.after(() => svc.close());
  base = `http://127.0.0.1:${svc.port}`;
  const newTurn = await sealTurn(base);
  const v = await call(base, 'GET', `/v1/admin/audit/verify?tenant_id=${TENANT}`, ADMIN());
  assert.deepEqual(v.body, { ok: true, checked: 3, failures: [] });

  const oldBundle = await call(base, 'GET', `/v1/receipts/${oldTurn}/bundle`, ADMIN());
  const newBundle = await call(base, 'GET', `/v1/receipts/${newTurn}/bundle`, ADMIN());
  assert.equal(oldBundle.body.proof.envelope.key_version, 'v1');
  assert.equal(newBundle.body.proof.envelope.key_version, 'v2');
  const oldFile = join(cfg1.dataDir, 'old.bundle.json');
  const newFile = join(cfg1.dataDir, 'new.bundle.json');
  writeFileSync(oldFile, JSON.stringify(oldBundle.body));
  writeFileSync(newFile, JSON.stringify(newBundle.body));
  const detailFile = join(cfg1.dataDir, 'old.detail.json');
  const proofFile = join(cfg1.dataDir, 'old.proof.json');
  writeFileSync(detailFile, JSON.stringify((await call(base, 'GET', `/v1/receipts/${oldTurn}`, ADMIN())).body));
  writeFileSync(proofFile, JSON.stringify((await call(base, 'GET', `/v1/receipts/${oldTurn}/proof`, ADMIN())).body));

  const both = ['--key-version', 'v1', '--key', KEY_V1, '--key-version', 'v2', '--key', KEY_V2];
  let r = svcVerify(['--receipt', detailFile, '--proof', proofFile, ...both]);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /PASS {2}leaves/);
  assert.match(r.out, /VERIFIED/);
  r = svcVerify(['--receipt', oldFile, '--proof', oldFile, ...both]);
  assert.equal(r.code, 0, r.out);
  r = svcVerify(['--bundle', newFile, '--key-version', 'v2', '--key', KEY_V2]);
  assert.equal(r.code, 0, r.out);
  // The old receipt's suffix now holds v2 rows: v1 alone cannot vouch for them.
  r = svcVerify(['--bundle', oldFile, '--key-version', 'v1', '--key', KEY_V1]);
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /FAIL {2}suffix_hmac/);
  // Wrong key: envelope HMAC fails.
  r = svcVerify(['--bundle', newFile, '--key-version', 'v2', '--key', KEY_V1]);
  assert.equal(r.code, 1);
  assert.match(r.out, /FAIL {2}envelope_hmac/);
  // Altered event: leaves fail.
  const altered = JSON.parse(JSON.stringify(newBundle.body)) as { detail: { events: Array<{ payload_json: string }> } };
  altered.detail.events[1]!.payload_json = '{"tool":"y"}';
  writeFileSync(newFile, JSON.stringify(altered));
  r = svcVerify(['--bundle', newFile, ...both]);
  assert.equal(r.code, 1);
  assert.match(r.out, /FAIL {2}leaves/);
  assert.equal(svcVerify(['--bundle', newFile]).code, 2);

  const sv = await call(base, 'POST', `/v1/receipts/${oldTurn}/verify`, ADMIN(), {});
  assert.equal(sv.body.ok, true);
  assert.equal(sv.body.receipt.status, 'verified');
});

test('live rotation through the key provider needs no restart', async (t) => {
  const cfg = auditConfig();
  t.after(() => removeDir(cfg.dataDir));
  let ring: KeyRing = { active: { version: 'v1', key: KEY_V1 }, byVersion: new Map([['v1', KEY_V1]]) };
  const svc = await start(cfg, { auditKeys: () => ring });
  t.after(() => svc.close());
  const base = `http://127.0.0.1:${svc.port}`;
  const a = await call(base, 'POST', '/v1/audit', SERVICE(), { action: 'x' });
  assert.equal(a.body.key_version, 'v1');
  ring = { active: { version: 'v2', key: KEY_V2 }, byVersion: new Map([['v2', KEY_V2], ['v1', KEY_V1]]) };
  const b = await call(base, 'POST', '/v1/audit', SERVICE(), { action: 'x' });
  assert.equal(b.body.key_version, 'v2');
  const turn = await sealTurn(base);
  const d = await call(base, 'GET', `/v1/receipts/${turn}`, ADMIN());
  assert.equal(d.body.envelope.key_version, 'v2');
  assert.equal((await call(base, 'GET', `/v1/admin/audit/verify?tenant_id=${TENANT}`, ADMIN())).body.ok, true);
  // Keys are resolved fresh per verify run: dropping v1 makes row 1 fail.
  ring = { active: { version: 'v2', key: KEY_V2 }, byVersion: new Map([['v2', KEY_V2]]) };
  const v = await call(base, 'GET', `/v1/admin/audit/verify?tenant_id=${TENANT}`, ADMIN());
  assert.equal(v.body.ok, false);
  assert.deepEqual(v.body.failures, [{ check: 'hmac', id: 1, seq: 1, reason: 'no key configured for key_version v1' }]);
});
