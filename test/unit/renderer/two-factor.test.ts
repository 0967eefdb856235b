/**
 * The second factor's pure renderer modules (issue 14 items 3, 4, 7, 8): the phone's RFC 6238 code
 * over WebCrypto HMAC (appendix B vectors), its reading of the enrollment URL, its signed objects
 * (non-extractable key; verified with jose as the auth service would), and the sign-in's handling of
 * each `/v1/auth/login/2fa` answer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EmbeddedJWK, importJWK, jwtVerify } from 'jose';
import type { webcrypto } from 'node:crypto';
import { loadRenderer } from './load.js';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

interface Totp {
  base32Decode(s: string): Uint8Array;
  timeStep(ms: number, period: number): number;
  secondsLeft(ms: number, period: number): number;
  totp(hmac: (m: Uint8Array) => Promise<ArrayBuffer>, ms: number, period: number, digits: number): Promise<string>;
}
interface PairLinkMod {
  pairLinkOf(hash: string): { token: string; fingerprint: string } | null;
  apiBaseOf(origin: string, pathname: string): string;
  fingerprintLines(fp: string): string[];
  enrollmentClaims(token: string): { enrollment_id: string; nonce: string; exp: number; iss: string } | null;
  defaultDeviceName(ua: string): string;
}
interface CryptoMod {
  newDeviceKeys(): Promise<CryptoKeyPair>;
  enrollmentProof(keys: CryptoKeyPair, a: { enrollment_id: string; nonce: string; name: string }): Promise<string>;
  deviceProof(key: CryptoKey, a: { device_id: string; public_url: string; htm: string; htu: string }): Promise<string>;
  answerJws(key: CryptoKey, a: { device_id: string; challenge_id: string; decision: string; number?: number }): Promise<string>;
  publicJwk(k: CryptoKey): Promise<{ kty: string; crv: string; x: string; y: string }>;
  importTotpKey(secret: string, alg: string): Promise<CryptoKey>;
  offlineCode(key: CryptoKey, p: { digits: number; period: number }, ms?: number): Promise<string>;
}
interface SecondFactorMod {
  pollOutcome(status: number, code: string | null, withCode: boolean): { kind: string; message?: string };
  normaliseCode(t: string): string | null;
  secondsUntil(iso: string | null | undefined, now: number): number | null;
  clock(s: number): string;
  fingerprintOfEnrollmentUrl(url: string): string;
  secondFactorMessage(code: string, status?: number): string;
}

const T = await loadRenderer<Totp>('mobile/totp.ts');
const P = await loadRenderer<PairLinkMod>('mobile/pair-link.ts');
const C = await loadRenderer<CryptoMod>('mobile/device-crypto.ts');
const S = await loadRenderer<SecondFactorMod>('auth/second-factor.ts');
const { route } = await loadRenderer<{ route(p: string): { page: string; param: string | null } }>('app/route.ts');

const b32 = (ascii: string): string => {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const ch of Buffer.from(ascii)) bits += ch.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += A[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
};

test('phone offline code: RFC 6238 appendix B vectors through a WebCrypto HMAC key', async () => {
  const seeds: Record<string, string> = { SHA1: '12345678901234567890', SHA256: '12345678901234567890123456789012', SHA512: '1234567890123456789012345678901234567890123456789012345678901234' };
  const vectors: [number, Record<string, string>][] = [
    [59, { SHA1: '94287082', SHA256: '46119246', SHA512: '90693936' }],
    [1111111109, { SHA1: '07081804', SHA256: '68084774', SHA512: '25091201' }],
    [1111111111, { SHA1: '14050471', SHA256: '67062674', SHA512: '99943326' }],
    [1234567890, { SHA1: '89005924', SHA256: '91819424', SHA512: '93441116' }],
    [2000000000, { SHA1: '69279037', SHA256: '90698825', SHA512: '38618901' }],
    [20000000000, { SHA1: '65353130', SHA256: '77737706', SHA512: '47863826' }],
  ];
  for (const alg of ['SHA1', 'SHA256', 'SHA512']) {
    const key = await C.importTotpKey(b32(seeds[alg]!), alg);
    assert.equal(key.extractable, false, 'the secret cannot be read back out of the key');
    for (const [t, codes] of vectors) assert.equal(await C.offlineCode(key, { digits: 8, period: 30 }, t * 1000), codes[alg], `${alg} at ${t}`);
  }
  const sha1 = await C.importTotpKey(b32(seeds.SHA1!), 'SHA1');
  assert.equal(await C.offlineCode(sha1, { digits: 6, period: 30 }, 59_000), '287082');
  assert.deepEqual([...T.base32Decode('gezdgnbv gy======')], [...Buffer.from('12345')].concat([0x36]).slice(0, 6));
  assert.throws(() => T.base32Decode('A1'), /not base32/);
  assert.equal(T.timeStep(59_000, 30), 1);
  assert.equal(T.secondsLeft(59_000, 30), 1);
  assert.equal(T.secondsLeft(60_000, 30), 30);
});

test('phone pairing link: token and fingerprint from the fragment, API base before /m/', () => {
  const fp = 'AB'.repeat(32);
  assert.deepEqual(P.pairLinkOf(`#pair?token=a.b.c&fp=${fp}`), { token: 'a.b.c', fingerprint: fp.toLowerCase() });
  assert.deepEqual(P.pairLinkOf('#pair?token=a.b.c&fp='), { token: 'a.b.c', fingerprint: '' });
  assert.equal(P.pairLinkOf('#pair?token=abc'), null);
  assert.equal(P.pairLinkOf(''), null);
  assert.equal(P.apiBaseOf('https://10.0.0.2:8443', '/m/'), 'https://10.0.0.2:8443');
  assert.equal(P.apiBaseOf('https://h', '/svc/m/'), 'https://h/svc');
  assert.equal(P.apiBaseOf('https://h', '/m'), 'https://h');
  assert.deepEqual(P.fingerprintLines('ab'.repeat(32)), Array(4).fill(Array(8).fill('AB').join(':')));
  const claims = Buffer.from(JSON.stringify({ jti: 'E1', nonce: 'n', exp: 9, iss: 'https://h/auth' })).toString('base64url');
  assert.deepEqual(P.enrollmentClaims(`h.${claims}.s`), { enrollment_id: 'E1', nonce: 'n', exp: 9, iss: 'https://h/auth' });
  assert.equal(P.enrollmentClaims('h.e30.s'), null);
  assert.equal(P.defaultDeviceName('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)'), 'iPhone');
  assert.equal(P.defaultDeviceName('Mozilla/5.0 (Linux; Android 14; Pixel 8)'), 'Android phone');
});

test('phone keys: non-extractable; the enrollment proof carries the public JWK; proofs and answers verify', async () => {
  const keys = await C.newDeviceKeys();
  assert.equal(keys.privateKey.extractable, false);
  await assert.rejects(crypto.subtle.exportKey('jwk', keys.privateKey));
  const proof = await C.enrollmentProof(keys, { enrollment_id: 'E1', nonce: 'n0', name: 'Pixel' });
  const v = await jwtVerify(proof, EmbeddedJWK, { typ: 'svc-device-enroll+jwt' });
  assert.deepEqual(Object.keys(v.protectedHeader.jwk!).sort(), ['crv', 'kty', 'x', 'y']);
  assert.equal(v.payload.enrollment_id, 'E1');
  assert.equal(v.payload.nonce, 'n0');
  assert.equal(v.payload.name, 'Pixel');
  assert.ok(v.payload.exp! - v.payload.iat! <= 120);
  const pub = await importJWK(await C.publicJwk(keys.publicKey), 'ES256');
  const dp = await C.deviceProof(keys.privateKey, { device_id: 'D1', public_url: 'https://h', htm: 'GET', htu: '/dirauth/pair/challenges' });
  const d = await jwtVerify(dp, pub, { typ: 'svc-device+jwt', audience: 'https://h/dirauth/pair', subject: 'D1' });
  assert.equal(d.protectedHeader.kid, 'D1');
  assert.deepEqual([d.payload.htm, d.payload.htu], ['GET', '/dirauth/pair/challenges']);
  assert.ok(String(d.payload.jti).length >= 16);
  const a = await jwtVerify(await C.answerJws(keys.privateKey, { device_id: 'D1', challenge_id: 'C1', decision: 'approve', number: 42 }), pub, { typ: 'svc-device-answer+jwt' });
  assert.deepEqual([a.payload.sub, a.payload.challenge_id, a.payload.decision, a.payload.number], ['D1', 'C1', 'approve', 42]);
});

test('sign-in second factor: each answer of /v1/auth/login/2fa has its next step and words', () => {
  assert.equal(S.pollOutcome(200, null, false).kind, 'approved');
  assert.equal(S.pollOutcome(202, null, false).kind, 'pending');
  assert.equal(S.pollOutcome(403, 'challenge_denied', false).kind, 'final');
  assert.match(S.pollOutcome(403, 'challenge_denied', false).message!, /denied on your phone/);
  assert.match(S.pollOutcome(410, 'challenge_expired', false).message!, /expired/);
  assert.match(S.pollOutcome(409, 'challenge_used', true).message!, /already completed/);
  assert.equal(S.pollOutcome(401, 'code_invalid', true).kind, 'code_rejected');
  assert.match(S.pollOutcome(401, 'code_invalid', true).message!, /not right/);
  assert.equal(S.pollOutcome(0, 'network_error', false).kind, 'retry');
  assert.equal(S.pollOutcome(429, 'rate_limited', false).kind, 'retry');
  assert.match(S.secondFactorMessage('challenge_throttled'), /Too many sign-in requests/);
  assert.match(S.secondFactorMessage('weird', 502), /server had a problem/);
});

test('sign-in second factor: typed codes, countdowns, the fingerprint next to the QR code', () => {
  assert.equal(S.normaliseCode(' 123 456 '), '123456');
  assert.equal(S.normaliseCode('ABCD-EFGH-2345'), 'abcd-efgh-2345');
  assert.equal(S.normaliseCode('abcdefgh2345'), 'abcd-efgh-2345');
  assert.equal(S.normaliseCode('12345'), null);
  assert.equal(S.normaliseCode('abcd-efgh-1234'), null, 'base32 has no 0, 1, 8, 9');
  assert.equal(S.secondsUntil('1970-01-01T00:01:00Z', 0), 60);
  assert.equal(S.secondsUntil('1970-01-01T00:00:00Z', 5000), 0);
  assert.equal(S.secondsUntil(null, 0), null);
  assert.equal(S.clock(125), '2:05');
  assert.equal(S.fingerprintOfEnrollmentUrl(`https://h/m/#pair?token=a.b.c&fp=${'0f'.repeat(32)}`), Array(32).fill('0F').join(':'));
  assert.equal(S.fingerprintOfEnrollmentUrl('http://127.0.0.1:1/m/#pair?token=a.b.c&fp='), '');
  assert.deepEqual(route('/account'), { page: 'account', param: null });
  assert.deepEqual(route('/account/welcome'), { page: 'account', param: 'welcome' });
});
