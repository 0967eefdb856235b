/**
 * `scripts/svc-device` pure parts (issue 14 item 7): the command line, the state file (mode 0600,
 * atomic), the enrollment URL, the offline code against RFC 6238 appendix B, and the signed objects
 * (verified with jose as the auth service would).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync, chmodSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compactVerify, decodeProtectedHeader, importJWK, jwtVerify, EmbeddedJWK, SignJWT, generateKeyPair } from 'jose';
import { DeviceCliError, main, parseDeviceArgs } from '../../../scripts/svc-device.js';
import { parseEnrollmentUrl, normaliseFingerprint } from '../../../scripts/device/enrollment-url.js';
import { readState, writeState, type DeviceState } from '../../../scripts/device/state.js';
import { secondsLeft, totpCode } from '../../../scripts/device/totp.js';
import { answerJws, deviceProof, enrollmentClaims, enrollmentProof, newDeviceKey } from '../../../scripts/device/jws.js';

const CHALLENGE = '01HZZZZZZZZZZZZZZZZZZZZZZZ';

function usageError(fn: () => unknown, re: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof DeviceCliError && e.code === 'usage' && e.exitCode === 2 && re.test(e.message));
}

test('parseDeviceArgs: the issue\'s command surface', () => {
  assert.deepEqual(parseDeviceArgs(['pair', 'http://h/m/#pair?token=a.b.c', '--state', 'F']),
    { command: 'pair', state: 'F', insecure: false, target: 'http://h/m/#pair?token=a.b.c', name: undefined, number: undefined, wait: undefined });
  assert.equal(parseDeviceArgs(['pair', 'u', '--state=F', '--name', 'My phone', '--insecure']).name, 'My phone');
  assert.equal(parseDeviceArgs(['pair', 'u', '--state=F', '--insecure']).insecure, true);
  assert.equal(parseDeviceArgs(['pending', '--state', 'F']).command, 'pending');
  assert.equal(parseDeviceArgs(['pending', '--state', 'F', '--wait', '20']).wait, 20);
  const ap = parseDeviceArgs(['approve', CHALLENGE, '--number', '42', '--state', 'F']);
  assert.equal(ap.number, 42);
  assert.equal(ap.target, CHALLENGE);
  assert.equal(parseDeviceArgs(['--state', 'F', 'deny', CHALLENGE]).command, 'deny');
  assert.equal(parseDeviceArgs(['report', CHALLENGE, '--state', 'F']).command, 'report');
  assert.equal(parseDeviceArgs(['code', '--state', 'F']).command, 'code');
  assert.equal(parseDeviceArgs(['refresh', '--state', 'F']).command, 'refresh');
});

test('parseDeviceArgs: refusals say what is wrong (exit 2)', () => {
  usageError(() => parseDeviceArgs([]), /give a command/);
  usageError(() => parseDeviceArgs(['fly', '--state', 'F']), /unknown command fly/);
  usageError(() => parseDeviceArgs(['code']), /--state F is required/);
  usageError(() => parseDeviceArgs(['code', '--state']), /--state needs a value/);
  usageError(() => parseDeviceArgs(['pair', '--state', 'F']), /one enrollment URL/);
  usageError(() => parseDeviceArgs(['approve', CHALLENGE, '--state', 'F']), /needs --number/);
  usageError(() => parseDeviceArgs(['approve', CHALLENGE, '--number', 'x', '--state', 'F']), /--number takes/);
  usageError(() => parseDeviceArgs(['deny', CHALLENGE, '--number', '12', '--state', 'F']), /--number belongs to approve/);
  usageError(() => parseDeviceArgs(['deny', 'not-an-id', '--state', 'F']), /not a challenge id/);
  usageError(() => parseDeviceArgs(['code', 'extra', '--state', 'F']), /takes no argument/);
  usageError(() => parseDeviceArgs(['code', '--state', 'F', '--name', 'x']), /--name belongs to pair/);
  usageError(() => parseDeviceArgs(['pair', 'u', '--state', 'F', '--name', 'x'.repeat(65)]), /1 to 64/);
  usageError(() => parseDeviceArgs(['pending', '--state', 'F', '--wait', '30']), /1 to 25/);
  usageError(() => parseDeviceArgs(['code', '--state', 'F', '--bogus']), /unknown option --bogus/);
  usageError(() => parseDeviceArgs(['refresh', '--state', 'F', '--insecure']), /--insecure belongs to pair/);
});

test('main: usage errors exit 2, a missing state file exits 1 with one line', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l), now: () => Date.now() };
  assert.equal(await main(['nope'], io), 2);
  assert.match(err.pop()!, /unknown command nope/);
  const dir = mkdtempSync(join(tmpdir(), 'svc-device-'));
  assert.equal(await main(['code', '--state', join(dir, 'missing.json')], io), 1);
  assert.match(err.pop()!, /^svc-device: error: no state file at .*; pair first$/);
  assert.equal(await main(['pair', 'https://h/x#pair?token=a.b.c', '--state', join(dir, 's.json')], io), 2);
  assert.match(err.pop()!, /does not point at the phone app/);
  assert.deepEqual(out, []);
});

function sampleState(): DeviceState {
  return {
    api_base: 'http://127.0.0.1:1', device_id: 'D1', private_jwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' }, public_jwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' },
    access_token: 'a', refresh_token: 'r', totp: { secret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', algorithm: 'SHA1', digits: 6, period: 30 }, fingerprint: '',
  };
}

test('state file: written mode 0600 whatever the umask, atomically, and read back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-device-'));
  const file = join(dir, 'state.json');
  const old = process.umask(0);
  try {
    writeState(file, sampleState());
  } finally { process.umask(old); }
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(readState(file), sampleState());
  // An existing world-readable file is replaced by a 0600 one; no temporary file is left behind.
  writeFileSync(file, '{}');
  chmodSync(file, 0o644);
  writeState(file, { ...sampleState(), refresh_token: 'r2' });
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(readState(file).refresh_token, 'r2');
  assert.deepEqual(readdirSync(dir), ['state.json']);
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).device_id, 'D1');
});

test('state file: a broken or incomplete file is refused with the reason', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-device-'));
  const file = join(dir, 's.json');
  writeFileSync(file, 'not json');
  assert.throws(() => readState(file), /is not JSON/);
  writeFileSync(file, JSON.stringify({ ...sampleState(), device_id: '' }));
  assert.throws(() => readState(file), /has no device_id/);
  writeFileSync(file, JSON.stringify({ ...sampleState(), totp: null }));
  assert.throws(() => readState(file), /no device key or offline-code secret/);
});

test('offline code: RFC 6238 appendix B test vectors (SHA1, SHA256, SHA512; 8 digits; T0 = 0, X = 30)', () => {
  // Secrets of the RFC: the ASCII digits "1234567890" repeated to 20, 32 and 64 bytes, in base32.
  const b32 = (ascii: string): string => {
    const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
    let bits = '';
    for (const ch of Buffer.from(ascii)) bits += ch.toString(2).padStart(8, '0');
    let out = '';
    for (let i = 0; i < bits.length; i += 5) out += A[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
    return out;
  };
  const seeds = { SHA1: '12345678901234567890', SHA256: '12345678901234567890123456789012', SHA512: '1234567890123456789012345678901234567890123456789012345678901234' };
  const vectors: [number, string, string, string][] = [
    [59, '94287082', '46119246', '90693936'],
    [1111111109, '07081804', '68084774', '25091201'],
    [1111111111, '14050471', '67062674', '99943326'],
    [1234567890, '89005924', '91819424', '93441116'],
    [2000000000, '69279037', '90698825', '38618901'],
    [20000000000, '65353130', '77737706', '47863826'],
  ];
  for (const [t, sha1, sha256, sha512] of vectors) {
    const at = t * 1000;
    assert.equal(totpCode({ secret: b32(seeds.SHA1), algorithm: 'SHA1', digits: 8, period: 30 }, at), sha1, `SHA1 at ${t}`);
    assert.equal(totpCode({ secret: b32(seeds.SHA256), algorithm: 'SHA256', digits: 8, period: 30 }, at), sha256, `SHA256 at ${t}`);
    assert.equal(totpCode({ secret: b32(seeds.SHA512), algorithm: 'SHA512', digits: 8, period: 30 }, at), sha512, `SHA512 at ${t}`);
  }
  // The protocol's 6 digits are the last 6 of the same HOTP value.
  assert.equal(totpCode({ secret: b32(seeds.SHA1), algorithm: 'SHA1', digits: 6, period: 30 }, 59_000), '287082');
  assert.equal(secondsLeft({ period: 30 }, 59_000), 1);
  assert.equal(secondsLeft({ period: 30 }, 60_000), 30);
});

test('enrollment URL: origin and prefix as the API base, token and fingerprint from the fragment', () => {
  const fp = 'ab'.repeat(32);
  assert.deepEqual(parseEnrollmentUrl(`https://192.168.1.5:8443/m/#pair?token=a.b.c&fp=${fp}`), { apiBase: 'https://192.168.1.5:8443', token: 'a.b.c', fingerprint: fp });
  assert.deepEqual(parseEnrollmentUrl('http://127.0.0.1:9/svc/m/#pair?token=a.b.c&fp='), { apiBase: 'http://127.0.0.1:9/svc', token: 'a.b.c', fingerprint: '' });
  assert.equal(parseEnrollmentUrl(`https://h/m/#pair?fp=${fp.toUpperCase().match(/../g)!.join(':')}&token=x.y.z`).fingerprint, fp);
  assert.throws(() => parseEnrollmentUrl('ftp://h/m/#pair?token=a.b.c'), /http or https/);
  assert.throws(() => parseEnrollmentUrl('https://h/m/#token=a.b.c'), /no #pair\? fragment/);
  assert.throws(() => parseEnrollmentUrl('https://h/m/#pair?token=abc'), /no enrollment token/);
  assert.throws(() => parseEnrollmentUrl('https://h/m/#pair?token=a.b.c&fp=zz'), /not a SHA-256/);
  assert.equal(normaliseFingerprint('AB:cd'), null);
});

test('signed objects: the enrollment proof carries its key; device proofs and answers verify with it', async () => {
  const keys = await newDeviceKey();
  assert.deepEqual(Object.keys(keys.public_jwk).sort(), ['crv', 'kty', 'x', 'y']);
  assert.equal(typeof keys.private_jwk.d, 'string');
  const now = Math.floor(Date.now() / 1000);

  // The enrollment token is read, not verified, by the device.
  const { privateKey } = await generateKeyPair('ES256');
  const token = await new SignJWT({ nonce: 'n0nce' }).setProtectedHeader({ alg: 'ES256', typ: 'svc-enroll+jwt' }).setJti('01HENROLL').setIssuedAt(now).setExpirationTime(now + 120).sign(privateKey);
  assert.deepEqual(enrollmentClaims(token), { enrollment_id: '01HENROLL', nonce: 'n0nce', exp: now + 120 });
  assert.throws(() => enrollmentClaims('a.b.c'), /malformed/);

  const proof = await enrollmentProof({ enrollment_id: '01HENROLL', nonce: 'n0nce', name: 'CLI', ...keys, now });
  const header = decodeProtectedHeader(proof);
  assert.equal(header.typ, 'svc-device-enroll+jwt');
  assert.equal(header.alg, 'ES256');
  const v = await jwtVerify(proof, EmbeddedJWK, { typ: 'svc-device-enroll+jwt' });
  assert.deepEqual({ ...v.payload }, { enrollment_id: '01HENROLL', nonce: 'n0nce', name: 'CLI', iat: now, exp: now + 60 });

  const pub = await importJWK(keys.public_jwk, 'ES256');
  const dp = await deviceProof({ device_id: 'DEV', audience: 'http://h/dirauth/pair', htm: 'GET', htu: '/dirauth/pair/challenges', private_jwk: keys.private_jwk, now });
  const d = await jwtVerify(dp, pub, { typ: 'svc-device+jwt', audience: 'http://h/dirauth/pair', subject: 'DEV' });
  assert.equal(d.protectedHeader.kid, 'DEV');
  assert.equal(d.payload.htm, 'GET');
  assert.equal(d.payload.htu, '/dirauth/pair/challenges');
  assert.ok(typeof d.payload.jti === 'string' && d.payload.jti.length >= 16);
  const dp2 = await deviceProof({ device_id: 'DEV', audience: 'a', htm: 'GET', htu: '/x', private_jwk: keys.private_jwk, now });
  assert.notEqual((await jwtVerify(dp2, pub)).payload.jti, d.payload.jti, 'every proof has its own jti');

  const ans = await answerJws({ device_id: 'DEV', challenge_id: CHALLENGE, decision: 'approve', number: 42, private_jwk: keys.private_jwk, now });
  const a = await jwtVerify(ans, pub, { typ: 'svc-device-answer+jwt' });
  assert.equal(a.payload.challenge_id, CHALLENGE);
  assert.equal(a.payload.decision, 'approve');
  assert.equal(a.payload.number, 42);
  const deny = await answerJws({ device_id: 'DEV', challenge_id: CHALLENGE, decision: 'deny', private_jwk: keys.private_jwk, now });
  assert.equal(JSON.parse(Buffer.from((await compactVerify(deny, pub)).payload).toString()).number, undefined);
});
