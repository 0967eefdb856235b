/**
 * Issue 14 items 1 and 6: pairing a phone and managing devices on the real auth service (ephemeral
 * port, temp data dir, real SQLite), with the phone simulated by jose. Pairing happy path; used,
 * expired, replayed and forged enrollment tokens; bad enrollment proofs; the pending-pairing cap;
 * device list/rename/revoke, isolation between users, the admin surface, recovery codes, the
 * second-factor policy, and the audit rows and notifications each step leaves.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, createLocalJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, jwtVerify } from 'jose';
import { ISSUER } from '../helpers/auth.js';
import { SimDevice, pairPhone, parseEnrollmentUrl, postJson, twoFactorWorld, type TwoFactorWorld } from '../helpers/second-factor.js';
import type { Principal } from '../../services/shared/identity/principal.js';

describe('pairing a phone', () => {
  let w: TwoFactorWorld;
  let alice: { id: string; p: Principal };
  let bob: { id: string; p: Principal };

  before(async () => {
    w = await twoFactorWorld({}, { tlsFingerprint: () => 'ab'.repeat(32) });
    alice = await w.addUser('alice@example.test');
    bob = await w.addUser('bob@example.test');
  });
  after(async () => { await w.close(); });

  it('pairs: enrollment URL, token shape, proof of possession, mobile tokens, TOTP parameters, paired state, audit and notice', async () => {
    const pairing = await w.call('POST', '/v1/account/devices/pairing', { as: alice.p });
    assert.equal(pairing.status, 201);
    assert.equal(pairing.headers.get('cache-control'), 'no-store');
    const { enrollment_id, enrollment_url, expires_at } = pairing.body;
    assert.match(enrollment_url, /^http:\/\/127\.0\.0\.1:8080\/m\/#pair\?token=[\w-]+\.[\w-]+\.[\w-]+&fp=$/, 'plain-HTTP public URL: empty fingerprint');
    const { token } = parseEnrollmentUrl(enrollment_url);
    assert.deepEqual({ ...decodeProtectedHeader(token), kid: undefined }, { alg: 'ES256', typ: 'svc-enroll+jwt', kid: undefined });
    const claims = decodeJwt(token);
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.aud, 'svc-device-enrollment');
    assert.equal(claims.sub, alice.id);
    assert.equal(claims.jti, enrollment_id);
    assert.equal(Buffer.from(String(claims.nonce), 'base64url').length, 16);
    assert.equal(claims.exp! - claims.iat!, 120);
    assert.equal(Date.parse(expires_at), claims.exp! * 1000);

    const status = await w.call('GET', `/v1/account/devices/pairing/${enrollment_id}`, { as: alice.p });
    assert.deepEqual(status.body, { enrollment_id, state: 'pending', device_id: null });

    const phone = await SimDevice.create(w.clock.now);
    const r = await phone.pair(w.base, enrollment_url, 'Alice phone');
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.headers.get('cache-control'), 'no-store');
    assert.deepEqual(r.body.user, { id: alice.id, email: 'alice@example.test', name: 'alice' });
    assert.equal(r.body.token_type, 'Bearer');
    assert.equal(r.body.api_base, 'http://127.0.0.1:8080');
    assert.deepEqual({ ...r.body.totp, secret: undefined }, { secret: undefined, algorithm: 'SHA1', digits: 6, period: 30 });
    assert.match(r.body.totp.secret, /^[A-Z2-7]{32}$/);

    const jwks = createLocalJWKSet((await w.call('GET', '/.well-known/jwks.json')).body);
    const access = await jwtVerify(r.body.access_token, jwks, { issuer: ISSUER, audience: 'svc-frontend' });
    assert.equal(access.payload.sub, alice.id);
    assert.equal(access.payload.auth_method, 'mobile');
    assert.equal(access.payload.did, r.body.device_id);
    assert.equal(access.payload.sid, r.body.device_id);
    const refresh = await jwtVerify(r.body.refresh_token, jwks, { issuer: ISSUER, audience: 'svc-device-refresh' });
    assert.equal(refresh.payload.did, r.body.device_id);
    assert.ok(refresh.payload.exp! - refresh.payload.iat! === 30 * 86_400);

    const after1 = await w.call('GET', `/v1/account/devices/pairing/${enrollment_id}`, { as: alice.p });
    assert.deepEqual(after1.body, { enrollment_id, state: 'paired', device_id: r.body.device_id });

    const list = await w.call('GET', '/v1/account/devices', { as: alice.p });
    assert.equal(list.status, 200);
    assert.equal(list.body.items.length, 1);
    assert.equal(list.body.items[0].name, 'Alice phone');
    assert.equal(list.body.items[0].state, 'paired');
    assert.equal(list.body.recovery_codes_left, 0);
    assert.equal(list.body.enforced, false);

    const [row] = await w.waitFor('audit', (a) => a.action === 'auth.device.paired' && a.resource_id === r.body.device_id);
    assert.equal(row!.user_id, alice.id);
    assert.ok(!JSON.stringify(row).includes(r.body.totp.secret), 'no secret in the audit row');
    await w.waitFor('notifications', (n) => n.kind === 'device_paired' && n.user_id === alice.id);
  });

  it('puts the TLS fingerprint in the URL when the public URL is HTTPS', async () => {
    const w2 = await twoFactorWorld({ publicUrl: 'https://192.0.2.7:8443', issuer: 'https://192.0.2.7:8443/auth' }, { tlsFingerprint: () => 'ab'.repeat(32) });
    try {
      const u = await w2.addUser('carol@example.test');
      const pairing = await w2.call('POST', '/v1/account/devices/pairing', { as: u.p });
      const parsed = parseEnrollmentUrl(pairing.body.enrollment_url);
      assert.equal(parsed.fp, 'ab'.repeat(32));
      assert.equal(parsed.apiBase, 'https://192.0.2.7:8443');
    } finally { await w2.close(); }
  });

  it('refuses a second use of an enrollment token (409 enrollment_used), even with a new key', async () => {
    const pairing = await w.call('POST', '/v1/account/devices/pairing', { as: alice.p });
    const phone = await SimDevice.create(w.clock.now);
    const { token } = parseEnrollmentUrl(pairing.body.enrollment_url);
    const proof = await phone.enrollmentProof(token);
    assert.equal((await postJson(`${w.base}/dirauth/pair/enroll`, { enrollment_token: token, proof })).status, 201);
    const replay = await postJson(`${w.base}/dirauth/pair/enroll`, { enrollment_token: token, proof });
    assert.equal(replay.status, 409);
    assert.equal(replay.body.code, 'enrollment_used');
    const other = await SimDevice.create(w.clock.now);
    const second = await postJson(`${w.base}/dirauth/pair/enroll`, { enrollment_token: token, proof: await other.enrollmentProof(token) });
    assert.equal(second.status, 409);
    assert.equal(second.body.code, 'enrollment_used');
    w.clock.advance(121_000);
    const late = await postJson(`${w.base}/dirauth/pair/enroll`, { enrollment_token: token, proof: await other.enrollmentProof(token) });
    assert.equal(late.status, 409, 'a used token stays "used" after it expired');
    assert.equal(late.body.code, 'enrollment_used');
  });

  it('refuses an expired enrollment token (410 enrollment_expired) and reports the pairing expired', async () => {
    const pairing = await w.call('POST', '/v1/account/devices/pairing', { as: alice.p });
    w.clock.advance(121_000);
    const phone = await SimDevice.create(w.clock.now);
    const r = await phone.pair(w.base, pairing.body.enrollment_url);
    assert.equal(r.status, 410);
    assert.equal(r.body.code, 'enrollment_expired');
    const st = await w.call('GET', `/v1/account/devices/pairing/${pairing.body.enrollment_id}`, { as: alice.p });
    assert.equal(st.body.state, 'expired');
  });

  it('refuses forged and malformed enrollment tokens (401 enrollment_token_invalid)', async () => {
    const pairing = await w.call('POST', '/v1/account/devices/pairing', { as: alice.p });
    const { token } = parseEnrollmentUrl(pairing.body.enrollment_url);
    const claims = decodeJwt(token);
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'ES256', typ: 'svc-enroll+jwt', kid: decodeProtectedHeader(token).kid! }).sign(privateKey);
    const phone = await SimDevice.create(w.clock.now);
    for (const bad of [forged, 'not.a.jwt', token.slice(0, -4) + 'AAAA']) {
      const r = await postJson(`${w.base}/dirauth/pair/enroll`, { enrollment_token: bad, proof: await phone.enrollmentProof(token) });
      assert.equal(r.status, 401, bad);
      assert.equal(r.body.code, 'enrollment_token_invalid');
    }
    // A mobile refresh token (same issuer and key, other audience) is not an enrollment token.
    const paired = await pairPhone(w, bob.p);
    const r = await postJson(`${w.base}/dirauth/pair/enroll`, { enrollment_token: paired.refresh_token, proof: await phone.enrollmentProof(token) });
    assert.equal(r.body.code, 'enrollment_token_invalid');
    // The real token still works: a refused attempt spends nothing.
    assert.equal((await phone.pair(w.base, pairing.body.enrollment_url)).status, 201);
  });

  it('refuses a bad enrollment proof (401 device_proof_invalid): wrong key, nonce, enrollment id, lifetime, private JWK', async () => {
    const pairing = await w.call('POST', '/v1/account/devices/pairing', { as: alice.p });
    const { token } = parseEnrollmentUrl(pairing.body.enrollment_url);
    const phone = await SimDevice.create(w.clock.now);
    const thief = await SimDevice.create(w.clock.now);
    const iat = Math.floor(w.clock.now() / 1000);
    const proofs = [
      await phone.enrollmentProof(token, { key: thief.privateKey }),
      await phone.enrollmentProof(token, { nonce: 'AAAAAAAAAAAAAAAAAAAAAA' }),
      await phone.enrollmentProof(token, { enrollment_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }),
      await phone.enrollmentProof(token, { exp: iat + 3600 }),
      'garbage',
    ];
    for (const proof of proofs) {
      const r = await postJson(`${w.base}/dirauth/pair/enroll`, { enrollment_token: token, proof });
      assert.equal(r.status, 401);
      assert.equal(r.body.code, 'device_proof_invalid');
    }
    assert.equal((await phone.pair(w.base, pairing.body.enrollment_url)).status, 201, 'a refused proof spends nothing');
  });

  it('caps pending pairings at 5 per user (429 enrollment_limit) and hides others\' pairings', async () => {
    const u = await w.addUser('dave@example.test');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await w.call('POST', '/v1/account/devices/pairing', { as: u.p });
      assert.equal(r.status, 201);
      ids.push(r.body.enrollment_id);
    }
    const sixth = await w.call('POST', '/v1/account/devices/pairing', { as: u.p });
    assert.equal(sixth.status, 429);
    assert.equal(sixth.body.code, 'enrollment_limit');
    const peek = await w.call('GET', `/v1/account/devices/pairing/${ids[0]}`, { as: alice.p });
    assert.equal(peek.status, 404);
    assert.equal(peek.body.code, 'enrollment_not_found');
  });

  it('lets a user rename and revoke only their own devices; an admin lists and revokes anyone\'s', async () => {
    const phone = await pairPhone(w, bob.p, 'Bob phone');
    const mine = await w.call('PATCH', `/v1/account/devices/${phone.device_id}`, { as: bob.p, body: { name: '  Work phone ' } });
    assert.equal(mine.status, 200);
    assert.equal(mine.body.name, 'Work phone');
    for (const [method, body] of [['PATCH', { name: 'stolen' }], ['DELETE', undefined]] as const) {
      const r = await w.call(method, `/v1/account/devices/${phone.device_id}`, { as: alice.p, body });
      assert.equal(r.status, 404);
      assert.equal(r.body.code, 'device_not_found');
    }
    const aliceList = await w.call('GET', '/v1/account/devices', { as: alice.p });
    assert.ok(!aliceList.body.items.some((d: { id: string }) => d.id === phone.device_id), 'alice cannot see bob\'s device');

    const asUser = await w.call('GET', `/v1/admin/users/${bob.id}/devices`, { as: alice.p });
    assert.equal(asUser.status, 403);
    const admin = await w.admin();
    const adminList = await w.call('GET', `/v1/admin/users/${bob.id}/devices`, { as: admin.p });
    assert.equal(adminList.status, 200);
    assert.ok(adminList.body.items.some((d: { id: string; name: string }) => d.id === phone.device_id && d.name === 'Work phone'));
    const wrongOwner = await w.call('DELETE', `/v1/admin/users/${alice.id}/devices/${phone.device_id}`, { as: admin.p });
    assert.equal(wrongOwner.status, 404);
    const revoked = await w.call('DELETE', `/v1/admin/users/${bob.id}/devices/${phone.device_id}`, { as: admin.p });
    assert.equal(revoked.status, 204);
    const after2 = await w.call('GET', '/v1/account/devices', { as: bob.p });
    const d = after2.body.items.find((x: { id: string }) => x.id === phone.device_id);
    assert.equal(d.state, 'revoked');
    assert.ok(d.revoked_at);
    const [row] = await w.waitFor('audit', (a) => a.action === 'auth.device.revoked' && a.resource_id === phone.device_id);
    assert.equal(row!.detail!.reason, 'admin');
    await w.waitFor('notifications', (n) => n.kind === 'device_revoked' && n.user_id === bob.id);
    // The revoked device's proofs are refused, and its session is on the gateway's revocation list.
    const list = await phone.pending(w.base);
    assert.equal(list.status, 401);
    assert.equal(list.body.code, 'device_revoked');
    const feed = await w.call('GET', '/v1/internal/auth/revocations?after=0', { as: w.gateway() });
    assert.ok(feed.body.items.some((x: { sub: string; sid: string | null }) => x.sub === bob.id && x.sid === phone.device_id));
  });

  it('revokes from the account page (204), idempotently', async () => {
    const phone = await pairPhone(w, alice.p);
    assert.equal((await w.call('DELETE', `/v1/account/devices/${phone.device_id}`, { as: alice.p })).status, 204);
    assert.equal((await w.call('DELETE', `/v1/account/devices/${phone.device_id}`, { as: alice.p })).status, 204);
    const r = await postJson(`${w.base}/dirauth/pair/refresh`, { refresh_token: phone.refresh_token });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'device_revoked');
  });

  it('generates ten recovery codes once, replaces them, and counts what is left', async () => {
    const none = await w.call('GET', '/v1/account/devices/recovery-codes', { as: bob.p });
    assert.deepEqual(none.body, { remaining: 0, created_at: null });
    const first = await w.call('POST', '/v1/account/devices/recovery-codes', { as: bob.p });
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('cache-control'), 'no-store');
    assert.equal(first.body.codes.length, 10);
    assert.equal(new Set(first.body.codes).size, 10);
    for (const c of first.body.codes) assert.match(c, /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    const second = await w.call('POST', '/v1/account/devices/recovery-codes', { as: bob.p });
    assert.ok(!second.body.codes.some((c: string) => first.body.codes.includes(c)));
    const st = await w.call('GET', '/v1/account/devices/recovery-codes', { as: bob.p });
    assert.equal(st.body.remaining, 10);
    assert.ok(st.body.created_at);
    const list = await w.call('GET', '/v1/account/devices', { as: bob.p });
    assert.equal(list.body.recovery_codes_left, 10);
    const rows = await w.waitFor('audit', (a) => a.action === 'auth.recovery_codes.generated' && a.user_id === bob.id, 2);
    for (const c of [...first.body.codes, ...second.body.codes]) assert.ok(!JSON.stringify(rows).includes(c), 'no code in the audit rows');
  });

  it('serves the second-factor policy: env default, admin override, visible in /v1/auth/config', async () => {
    const admin = await w.admin();
    assert.deepEqual((await w.call('GET', '/v1/admin/users/second-factor', { as: admin.p })).body, { enforced: false, source: 'env' });
    assert.equal((await w.call('GET', '/v1/admin/users/second-factor', { as: alice.p })).status, 403);
    assert.equal((await w.call('PUT', '/v1/admin/users/second-factor', { as: alice.p, body: { enforced: true } })).status, 403);
    const put = await w.call('PUT', '/v1/admin/users/second-factor', { as: admin.p, body: { enforced: true } });
    assert.deepEqual(put.body, { enforced: true, source: 'admin' });
    assert.deepEqual((await w.call('GET', '/v1/auth/config')).body.secondFactor, { available: true, enforced: true });
    assert.equal((await w.call('GET', '/v1/account/devices', { as: alice.p })).body.enforced, true);
    assert.equal((await w.call('GET', '/v1/account/devices', { as: admin.p })).body.enforced, false, 'admins are never force-enrolled');
    await w.call('PUT', '/v1/admin/users/second-factor', { as: admin.p, body: { enforced: false } });
  });

  it('takes SVC_2FA_ENFORCED as the default', async () => {
    const w3 = await twoFactorWorld({ secondFactorEnforced: true });
    try {
      const admin = await w3.admin();
      assert.deepEqual((await w3.call('GET', '/v1/admin/users/second-factor', { as: admin.p })).body, { enforced: true, source: 'env' });
      const off = await w3.call('PUT', '/v1/admin/users/second-factor', { as: admin.p, body: { enforced: false } });
      assert.deepEqual(off.body, { enforced: false, source: 'admin' });
    } finally { await w3.close(); }
  });
});
