/**
 * Issue 14 item 2 (spec "States and transitions", paired mobile device): mobile refresh tokens
 * rotate by compare-and-swap; racing refreshes cannot both win; a replayed (already rotated)
 * refresh token revokes the device, issues nothing, notifies the user, is audited, and puts the
 * device's session on the gateway's revocation list; a revoked device cannot approve any more.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, createLocalJWKSet, decodeJwt, generateKeyPair, jwtVerify } from 'jose';
import { LoginChallengeClient } from '../../services/auth/src/client.js';
import { ISSUER } from '../helpers/auth.js';
import { pairPhone, postJson, twoFactorWorld, type TwoFactorWorld } from '../helpers/second-factor.js';

describe('mobile refresh', () => {
  let w: TwoFactorWorld;
  const refresh = (token: string) => postJson(`${w.base}/dirauth/pair/refresh`, { refresh_token: token });

  before(async () => { w = await twoFactorWorld(); });
  after(async () => { await w.close(); });

  it('rotates: the live refresh token gives a new pair whose access token is a mobile token of the device', async () => {
    const u = await w.addUser('rotate@example.test');
    const phone = await pairPhone(w, u.p);
    const r1 = await refresh(phone.refresh_token);
    assert.equal(r1.status, 200, JSON.stringify(r1.body));
    assert.equal(r1.headers.get('cache-control'), 'no-store');
    assert.equal(r1.body.token_type, 'Bearer');
    assert.notEqual(r1.body.refresh_token, phone.refresh_token);
    assert.notEqual(decodeJwt(r1.body.refresh_token).jti, decodeJwt(phone.refresh_token).jti);
    const jwks = createLocalJWKSet((await w.call('GET', '/.well-known/jwks.json')).body);
    const { payload } = await jwtVerify(r1.body.access_token, jwks, { issuer: ISSUER, audience: 'svc-frontend' });
    assert.equal(payload.auth_method, 'mobile');
    assert.equal(payload.did, phone.device_id);
    const r2 = await refresh(r1.body.refresh_token);
    assert.equal(r2.status, 200);
  });

  it('revokes the device when an already rotated refresh token comes back: nothing issued, notified, audited, session revoked', async () => {
    const u = await w.addUser('replay@example.test');
    const phone = await pairPhone(w, u.p);
    const gw = new LoginChallengeClient({ baseUrl: w.base, service: 'gateway', tenantId: w.cfg.tenantId, principalKeys: w.cfg.principalKeys });
    const stolen = phone.refresh_token;
    const live = await refresh(stolen);
    assert.equal(live.status, 200);
    const replay = await refresh(stolen);
    assert.equal(replay.status, 401);
    assert.equal(replay.body.code, 'refresh_token_reused');
    assert.equal(replay.body.access_token, undefined);
    // The legitimate holder's newer token is dead too: the device is revoked.
    const next = await refresh(live.body.refresh_token);
    assert.equal(next.status, 401);
    assert.equal(next.body.code, 'device_revoked');
    const list = await w.call('GET', '/v1/account/devices', { as: u.p });
    assert.equal(list.body.items[0].state, 'revoked');
    const [n] = await w.waitFor('notifications', (x) => x.kind === 'device_revoked' && x.user_id === u.id);
    assert.equal(n!.payload!.reason, 'refresh_reused');
    await w.waitFor('audit', (a) => a.action === 'auth.device.refresh_reused' && a.resource_id === phone.device_id);
    const feed = await w.call('GET', '/v1/internal/auth/revocations?after=0', { as: w.gateway() });
    assert.ok(feed.body.items.some((x: { sub: string; sid: string | null }) => x.sub === u.id && x.sid === phone.device_id));
    // A revoked device can no longer approve.
    assert.deepEqual(await gw.required(u.id), { required: false, enrolled: false, enforced: false, methods: [] });
    const c = await w.call('POST', '/login-challenge', { as: w.gateway(), body: { user_id: u.id, client_ip: '', user_agent: '' } });
    assert.equal(c.status, 409, 'no device left: no challenge to open');
    const again = await phone.pending(w.base);
    assert.equal(again.body.code, 'device_revoked');
  });

  it('lets at most one of racing refreshes win', async () => {
    const u = await w.addUser('race@example.test');
    const phone = await pairPhone(w, u.p);
    const results = await Promise.all(Array.from({ length: 4 }, () => refresh(phone.refresh_token)));
    const won = results.filter((r) => r.status === 200);
    assert.ok(won.length <= 1, `${won.length} refreshes won`);
    for (const r of results.filter((x) => x.status !== 200)) {
      assert.equal(r.status, 401);
      assert.ok(['refresh_token_reused', 'device_revoked'].includes(r.body.code), r.body.code);
    }
  });

  it('refuses bad refresh tokens (401 refresh_token_invalid) without touching the device', async () => {
    const u = await w.addUser('bad@example.test');
    const phone = await pairPhone(w, u.p);
    const claims = decodeJwt(phone.refresh_token);
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
    for (const bad of [forged, 'x.y.z', phone.access_token]) {
      const r = await refresh(bad);
      assert.equal(r.status, 401);
      assert.equal(r.body.code, 'refresh_token_invalid');
    }
    w.clock.advance(31 * 86_400_000);
    const expired = await refresh(phone.refresh_token);
    assert.equal(expired.body.code, 'refresh_token_invalid');
    w.clock.advance(-31 * 86_400_000);
    assert.equal((await refresh(phone.refresh_token)).status, 200, 'the device survived the refused attempts');
  });
});
