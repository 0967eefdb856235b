/**
 * Wycheproof JWS vectors (C2SP/wycheproof, ../shared/assets/vectors/wycheproof) against the
 * gateway's signature layer: every vector marked invalid must be rejected; a valid vector is
 * accepted exactly when its algorithm is on the issuer's allow-list (HMAC algorithms never are:
 * the gateway trusts only asymmetric issuer keys, which also shuts out key-confusion attacks).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, type JWK } from 'jose';
import { TokenValidator } from '../../../services/gateway/src/domain/token-validator.js';

interface Vector { tcId: number; comment: string; jws: string; result: 'valid' | 'invalid' | 'acceptable'; flags: string[] }
interface Group { public?: JWK; private?: JWK; tests: Vector[] }

const file = join(process.cwd(), '..', 'shared', 'assets', 'vectors', 'wycheproof', 'json_web_signature_test.json');
const ALLOWED = ['ES256', 'RS256', 'PS256'];

function publicPart(jwk: JWK): JWK {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk as JWK & Record<string, unknown>;
  return pub as JWK;
}

test('Wycheproof JWS vectors: invalid ones rejected, valid ones accepted iff their alg is allowed', async () => {
  const data = JSON.parse(readFileSync(file, 'utf8')) as { testGroups: Group[] };
  let checked = 0; let rejectedInvalid = 0; let acceptedValid = 0;
  for (const group of data.testGroups) {
    const key = group.public ?? group.private;
    if (!key) continue;
    // Symmetric keys are published as-is (a JWKS never holds them for us; included to prove rejection).
    const jwk = key.kty === 'oct' ? key : publicPart(key);
    const v = new TokenValidator([{ issuer: 'wp', jwksUrl: 'http://unused.invalid', algorithms: ALLOWED }], 'svc-frontend', 10,
      () => createLocalJWKSet({ keys: [jwk] }));
    for (const t of group.tests) {
      let alg = '';
      try { alg = String(decodeProtectedHeader(t.jws).alg); } catch { /* malformed */ }
      let accepted = false;
      try { await v.verifyJws(t.jws, 'wp'); accepted = true; } catch { accepted = false; }
      checked++;
      if (t.result === 'invalid') {
        assert.equal(accepted, false, `tcId ${t.tcId} (${t.comment}) must be rejected`);
        rejectedInvalid++;
      } else if (t.result === 'valid') {
        const expected: boolean = ALLOWED.includes(alg) && key.kty !== "oct";
        if (expected && !accepted) {
          // A valid signature we refuse must be refused for a key-policy reason, never by accident.
          assert.ok(jwk.use === 'enc' || (jwk.key_ops && !jwk.key_ops.includes('verify')) || (jwk.alg !== undefined && jwk.alg !== alg), `tcId ${t.tcId} (${t.comment}) should verify`);
        } else {
          assert.equal(accepted, expected, `tcId ${t.tcId} (${t.comment}) alg ${alg}`);
        }
        if (accepted) acceptedValid++;
      }
    }
  }
  assert.equal(checked, 401);
  assert.ok(rejectedInvalid >= 300, `rejected ${rejectedInvalid} invalid vectors`);
  assert.ok(acceptedValid > 0, 'some valid vectors verified');
});
