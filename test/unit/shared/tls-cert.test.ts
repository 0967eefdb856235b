/**
 * The gateway's LAN certificate (services/shared/identity/tls-cert.ts; issue 14 item 7): generated
 * once (ECDSA P-256, SAN = the hosts plus localhost and 127.0.0.1, key 0600) and kept across starts
 * (same fingerprint) while it covers the required hosts; replaced when a required host is missing
 * or it nears its end; an operator's pair is used as given and refused when the key does not match;
 * the served fingerprint is recorded and cleared.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CERT_LIFETIME_DAYS, RENEW_BEFORE_DAYS, fingerprintOfPem, loadOrCreateTlsCert, recordServedFingerprint, tlsFingerprintOf,
} from '../../../services/shared/identity/tls-cert.js';

const dir = (): string => mkdtempSync(join(tmpdir(), 'svc-tls-'));

test('generated once with the hosts in its SAN, key 0600; kept (same fingerprint) on the next start', async () => {
  const d = dir();
  const a = await loadOrCreateTlsCert(d, { hosts: ['192.0.2.7', 'workstation.lan'] });
  assert.equal(a.source, 'generated');
  const x = new X509Certificate(a.cert);
  for (const h of ['DNS:localhost', 'IP Address:127.0.0.1', 'IP Address:192.0.2.7', 'DNS:workstation.lan']) assert.ok(x.subjectAltName!.includes(h), h);
  assert.equal(x.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  assert.equal(statSync(join(d, 'tls', 'key.pem')).mode & 0o777, 0o600);
  assert.equal(statSync(join(d, 'tls')).mode & 0o777, 0o700);
  // Fingerprint = SHA-256 of the DER, lowercase hex, no colons.
  assert.equal(a.fingerprint, createHash('sha256').update(x.raw).digest('hex'));
  assert.equal(fingerprintOfPem(a.cert), a.fingerprint);
  const b = await loadOrCreateTlsCert(d, { hosts: ['192.0.2.7', 'workstation.lan', '198.51.100.3'], required: ['192.0.2.7'] });
  assert.equal(b.source, 'kept', 'a new LAN address that is not required keeps the certificate');
  assert.equal(b.fingerprint, a.fingerprint);
});

test('replaced when a required host is missing, or when it nears its end', async () => {
  const d = dir();
  const a = await loadOrCreateTlsCert(d, { hosts: ['192.0.2.7'] });
  const moved = await loadOrCreateTlsCert(d, { hosts: ['192.0.2.8'] });
  assert.equal(moved.source, 'generated');
  assert.notEqual(moved.fingerprint, a.fingerprint);
  const late = new Date(Date.now() + (CERT_LIFETIME_DAYS - RENEW_BEFORE_DAYS + 1) * 86_400_000);
  const renewed = await loadOrCreateTlsCert(d, { hosts: ['192.0.2.8'], now: () => late });
  assert.equal(renewed.source, 'generated');
  assert.notEqual(renewed.fingerprint, moved.fingerprint);
});

test("an operator's pair is used as given; a mismatched key or a missing file refuses to start", async () => {
  const d = dir();
  const mine = await loadOrCreateTlsCert(dir(), { hosts: ['192.0.2.9'] });
  const other = await loadOrCreateTlsCert(dir(), { hosts: ['192.0.2.9'] });
  writeFileSync(join(d, 'c.pem'), mine.cert);
  writeFileSync(join(d, 'k.pem'), mine.key);
  writeFileSync(join(d, 'k2.pem'), other.key);
  const op = await loadOrCreateTlsCert(d, { certFile: join(d, 'c.pem'), keyFile: join(d, 'k.pem'), hosts: ['10.9.9.9'] });
  assert.equal(op.source, 'operator');
  assert.equal(op.fingerprint, mine.fingerprint, 'not regenerated for hosts it does not name: the operator decides');
  await assert.rejects(loadOrCreateTlsCert(d, { certFile: join(d, 'c.pem'), keyFile: join(d, 'k2.pem'), hosts: [] }), /does not match/);
  await assert.rejects(loadOrCreateTlsCert(d, { certFile: join(d, 'nope.pem'), keyFile: join(d, 'k.pem'), hosts: [] }), /cannot be read/);
  await assert.rejects(loadOrCreateTlsCert(d, { certFile: join(d, 'c.pem'), hosts: [] }), /go together/);
});

test('the served fingerprint is recorded for the auth service, and cleared on plain HTTP', () => {
  const d = dir();
  assert.equal(tlsFingerprintOf(d), null);
  const fp = 'ab'.repeat(32);
  recordServedFingerprint(d, fp);
  assert.equal(tlsFingerprintOf(d), fp);
  assert.equal(readFileSync(join(d, 'tls', 'fingerprint'), 'utf8').trim(), fp);
  recordServedFingerprint(d, null);
  assert.equal(tlsFingerprintOf(d), null);
  recordServedFingerprint(d, null);
  writeFileSync(join(d, 'tls', 'fingerprint'), 'not a fingerprint');
  assert.equal(tlsFingerprintOf(d), null, 'anything but 64 hex digits is no fingerprint');
});
