import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { sha256Hex } from '../../../services/auth/src/domain/tokens.js';
import { ISSUER, addUser, codeOf, world } from '../../helpers/auth.js';

describe('TokenService', () => {
  it('signs access tokens with the claims the gateway reads', async () => {
    const w = await world();
    const u = await addUser(w, 'ann@example.test', 'ann-password', ['user', 'admin']);
    const { token, claims } = await w.tokens.accessToken(u, 'family-1');
    const { key } = w;
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet({ keys: [key.publicJwk] }), {
      issuer: ISSUER, audience: 'svc-frontend', algorithms: ['ES256'], currentDate: new Date(w.clock.now()),
    });
    assert.equal(protectedHeader.kid, key.kid);
    assert.deepEqual(payload, claims);
    assert.equal(claims.exp - claims.iat, 300);
    assert.equal(claims.sid, 'family-1');
    assert.deepEqual(claims.realm_access.roles, ['user', 'admin']);
  });

  it('stores only a hash of refresh tokens', async () => {
    const w = await world();
    const u = await addUser(w, 'ben@example.test', 'ben-password');
    const t = await w.tokens.issue(u);
    const rec = w.store.refresh.byHash(sha256Hex(t.refresh_token));
    assert.ok(rec);
    assert.notEqual(rec.token_hash, t.refresh_token);
    assert.equal(rec.family_id, decodeJwt(t.access_token).sid);
  });

  it('rotates within the family and revokes the family on reuse', async () => {
    const w = await world();
    const u = await addUser(w, 'cy@example.test', 'cy-password');
    const t1 = await w.tokens.issue(u);
    const t2 = await w.tokens.rotate(t1.refresh_token);
    const t3 = await w.tokens.rotate(t2.refresh_token);
    assert.equal(decodeJwt(t3.access_token).sid, decodeJwt(t1.access_token).sid);
    assert.equal(await codeOf(w.tokens.rotate(t1.refresh_token)), 'refresh_token_reused');
    assert.equal(w.reused.length, 1);
    assert.equal(await codeOf(w.tokens.rotate(t3.refresh_token)), 'refresh_token_invalid');
  });

  it('lets only one of two racing rotations win', async () => {
    const w = await world();
    const u = await addUser(w, 'dee@example.test', 'dee-password');
    const t = await w.tokens.issue(u);
    const codes = await Promise.all([codeOf(w.tokens.rotate(t.refresh_token)), codeOf(w.tokens.rotate(t.refresh_token))]);
    assert.deepEqual(codes.sort(), ['refresh_token_reused', undefined].sort());
  });

  it('refuses expired, unknown and disabled-user refresh tokens', async () => {
    const w = await world();
    const u = await addUser(w, 'eve@example.test', 'eve-password');
    const t = await w.tokens.issue(u);
    assert.equal(await codeOf(w.tokens.rotate('x'.repeat(43))), 'refresh_token_invalid');
    w.clock.advance(3600_000);
    assert.equal(await codeOf(w.tokens.rotate(t.refresh_token)), 'refresh_token_invalid');
    const t2 = await w.tokens.issue(u);
    w.store.users.save({ ...u, disabled: true });
    assert.equal(await codeOf(w.tokens.rotate(t2.refresh_token)), 'account_disabled');
  });
});
