/**
 * services/shared/identity: the stamped header format (sign, verify, rotation, expiry, tampering),
 * the verification cache, the service principal and the one cached service stamp; JCS and ULIDs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  STAMP_LIFETIME_SECONDS, StampVerifier, servicePrincipal, signStamp, verifyStamp, type Principal,
} from '../../../services/shared/identity/principal.js';
import { serviceStamp } from '../../../services/shared/identity/service-stamp.js';
import { jcs } from '../../../services/shared/identity/jcs.js';
import { bufferedPrng, ulidFactory } from '../../../services/shared/identity/ulid.js';

const NEW = 'n'.repeat(32) + '-newest';
const OLD = 'o'.repeat(32) + '-previous';
const T = 1_700_000_000;

test('signStamp: base64url(JCS(payload)).base64url(HMAC-SHA256), signed with the first key', () => {
  const stamp = signStamp({ exp: T + 10, b: 1, a: 'x' }, [NEW, OLD]);
  const [body, sig] = stamp.split('.');
  assert.equal(Buffer.from(body!, 'base64url').toString('utf8'), '{"a":"x","b":1,"exp":1700000010}');
  assert.equal(Buffer.from(sig!, 'base64url').length, 32);
  assert.deepEqual(verifyStamp(stamp, [NEW], T), { ok: true, payload: { a: 'x', b: 1, exp: T + 10 } });
  assert.deepEqual(verifyStamp(stamp, [OLD], T), { ok: false, error: 'bad_signature' }, 'not signed with the second key');
  assert.throws(() => signStamp({ exp: 1 }, []), /no signing key/);
});

test('verifyStamp: any key of the rotation; expiry, tampering and malformed values refused', () => {
  const byOld = signStamp({ exp: T + 10 }, [OLD]);
  assert.equal(verifyStamp(byOld, [NEW, OLD], T).ok, true);
  assert.deepEqual(verifyStamp(byOld, [NEW, OLD], T + 10), { ok: false, error: 'expired' }, 'exp is exclusive');
  assert.deepEqual(verifyStamp(byOld, [], T), { ok: false, error: 'no_keys' });
  const [body, sig] = signStamp({ exp: T + 10, role: 'user' }, [NEW]).split('.');
  const forged = Buffer.from(JSON.stringify({ exp: T + 10, role: 'admin' })).toString('base64url');
  assert.deepEqual(verifyStamp(`${forged}.${sig}`, [NEW], T), { ok: false, error: 'bad_signature' });
  for (const bad of [undefined, '', 'nodot', `${body}.${sig}.x`, `.${sig}`, `${body}.!!`, `${body}.${Buffer.alloc(16).toString('base64url')}`, 'a'.repeat(20_000)]) {
    assert.deepEqual(verifyStamp(bad, [NEW], T), { ok: false, error: 'malformed' }, String(bad).slice(0, 30));
  }
  // Validly signed but not an object with a numeric exp.
  assert.deepEqual(verifyStamp(signStamp({ exp: 'soon' }, [NEW]), [NEW], T), { ok: false, error: 'malformed' });
});

test('StampVerifier: caches successes until exp, never failures', () => {
  const v = new StampVerifier<{ exp: number }>([NEW], 2);
  const good = signStamp({ exp: T + 10 }, [NEW]);
  assert.equal(v.verify(good, T).ok, true);
  assert.equal(v.verify(good, T + 5).ok, true);
  assert.deepEqual(v.verify(good, T + 10), { ok: false, error: 'expired' }, 'a cached stamp still expires');
  assert.deepEqual(v.verify('garbage', T), { ok: false, error: 'malformed' });
  // Over the bound, the cache starts over and keeps answering correctly.
  for (let i = 0; i < 5; i++) assert.equal(v.verify(signStamp({ exp: T + 100 + i }, [NEW]), T).ok, true);
});

test('servicePrincipal: service:<name>, role service-account, lives STAMP_LIFETIME_SECONDS', () => {
  const p: Principal = servicePrincipal('memory', 'acme', T);
  assert.deepEqual(p, { id: 'service:memory', tenant_id: 'acme', roles: ['service-account'], groups: [], auth_method: 'service', iat: T, exp: T + STAMP_LIFETIME_SECONDS });
  assert.equal(STAMP_LIFETIME_SECONDS, 300);
});

test('serviceStamp: one stamp reused until a minute before expiry, then re-signed', () => {
  let now = T;
  const stamp = serviceStamp('knowledge', 'acme', [NEW, OLD], () => now);
  const first = stamp();
  const res = verifyStamp<Principal>(first, [NEW], now);
  assert.equal(res.ok, true);
  assert.equal(res.ok && res.payload.id, 'service:knowledge');
  assert.equal(res.ok && res.payload.tenant_id, 'acme');
  now = T + 240; // 60 s left
  assert.equal(stamp(), first, 'cached while 60 s or more remain');
  now = T + 241; // 59 s left
  const second = stamp();
  assert.notEqual(second, first, 're-signed when fewer than 60 s remain');
  const res2 = verifyStamp<Principal>(second, [NEW], now);
  assert.equal(res2.ok && res2.payload.iat, T + 241);
  now = T + 242;
  assert.equal(stamp(), second);
  // Separate callers keep separate caches.
  assert.notEqual(serviceStamp('memory', 'acme', [NEW], () => now)(), second);
});

test('jcs: RFC 8785 key order and number forms; refuses what JSON cannot hold', () => {
  assert.equal(jcs({ b: [1, { d: 1, c: 2 }], a: 'é', n: 1e21, f: 0.1 }), '{"a":"é","b":[1,{"c":2,"d":1}],"f":0.1,"n":1e+21}');
  assert.throws(() => jcs(undefined), TypeError);
  assert.throws(() => jcs(Number.NaN));
});

test('ulid: monotonic 26-character Crockford ids; the buffered PRNG stays in [0, 1)', () => {
  const next = ulidFactory();
  const ids = Array.from({ length: 1000 }, () => next(T * 1000));
  assert.ok(ids.every((id) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id)));
  assert.deepEqual([...ids].sort(), ids, 'same millisecond: still increasing');
  assert.equal(new Set(ids).size, ids.length);
  for (let i = 0; i < 10_000; i++) {
    const x = bufferedPrng();
    assert.ok(x >= 0 && x < 1);
  }
});
