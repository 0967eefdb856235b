/**
 * HTTPS on the LAN (issue 14 item 7): a phone's browser gives WebCrypto only to a secure context,
 * so with `SVC_BIND_HOST` off loopback the gateway serves HTTPS. Configured through main/config as
 * the supervisor does (bind 0.0.0.0): the public URL is `https://<first non-internal IPv4>:<port>`,
 * the auth service issues under that same URL and the gateway trusts it; the generated certificate
 * names that host (a client pinning it verifies the name), its fingerprint is the one the auth
 * service puts in the enrollment URL, and it is stable across restarts; the host check accepts the
 * LAN host and still refuses others; plain HTTP is not served there. A loopback gateway stays plain
 * HTTP and clears the fingerprint.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { Agent, request } from 'undici';
import { decodeJwt } from 'jose';
import { loadStackConfig, serviceConfigs } from '../../main/config/index.js';
import { freePort } from '../../main/supervisor/index.js';
import { start as startAuth } from '../../services/auth/src/index.js';
import { start as startGateway } from '../../services/gateway/src/index.js';
import { tlsFingerprintOf } from '../../services/shared/identity/tls-cert.js';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';

const ADMIN = 'lan-admin@example.test';
const PASSWORD = 'lan-admin-password';

/** The SHA-256 of the DER certificate a TLS server at host:port presents (no verification). */
function servedFingerprint(host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host, port, rejectUnauthorized: false, servername: undefined }, () => {
      const raw = s.getPeerCertificate().raw;
      s.end();
      resolve(createHash('sha256').update(raw).digest('hex'));
    });
    s.on('error', reject);
  });
}

test('off loopback the gateway serves HTTPS under its LAN public URL, with a pinned, stable certificate', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-https-lan-'));
  const stack = loadStackConfig({
    SVC_DATA_DIR: dataDir, SVC_ENV: 'test', SVC_BIND_HOST: '0.0.0.0', SVC_SCRYPT_N: '1024', SVC_LOG_LEVEL: 'warn',
    SVC_BOOTSTRAP_ADMIN_EMAIL: ADMIN, SVC_BOOTSTRAP_ADMIN_PASSWORD: PASSWORD,
  });
  const ports = {} as Record<ServiceName, number>;
  const taken = new Set<number>();
  for (const n of SERVICE_NAMES) ports[n] = await freePort('0.0.0.0', taken);
  const cfgs = serviceConfigs(stack, ports);
  const gwCfg = { ...cfgs.gateway, rendererDir: null };
  const publicUrl = new URL(gwCfg.publicUrl);
  assert.equal(publicUrl.protocol, 'https:');
  assert.equal(publicUrl.port, String(ports.gateway));
  assert.notEqual(publicUrl.hostname, '0.0.0.0');

  const auth = await startAuth(cfgs.auth);
  let gw = await startGateway(gwCfg);
  t.after(async () => { await gw.close(); await auth.close(); rmSync(dataDir, { recursive: true, force: true }); });

  const certPem = readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8');
  const cert = new X509Certificate(certPem);
  const fingerprint = tlsFingerprintOf(dataDir);
  assert.match(fingerprint ?? '', /^[0-9a-f]{64}$/);
  assert.equal(fingerprint, createHash('sha256').update(cert.raw).digest('hex'));
  assert.equal(await servedFingerprint(publicUrl.hostname, ports.gateway), fingerprint, 'the served certificate is the recorded one');

  // A client that pins the certificate (trusts it alone) verifies the public host's name against it.
  const pinned = new Agent({ connect: { ca: certPem } });
  t.after(() => pinned.close());
  // (A forged Host needs a client that does not check the name: the name is what is forged.)
  const lax = new Agent({ connect: { rejectUnauthorized: false } });
  t.after(() => lax.close());
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const r = await request(`${gwCfg.publicUrl}${path}`, { dispatcher: headers.host ? lax : pinned, headers });
    const text = await r.body.text();
    return { status: r.statusCode, body: text ? JSON.parse(text) : null };
  };
  const cfgAnswer = await get('/v1/auth/config');
  assert.equal(cfgAnswer.status, 200, 'the LAN host passes the host check over verified TLS');
  assert.equal(cfgAnswer.body.issuer, `${gwCfg.publicUrl}/auth`, 'auth issues under the same public URL');
  const foreign = await get('/v1/auth/config', { host: 'attacker.example' });
  assert.equal(foreign.status, 403);
  assert.equal(foreign.body.code, 'host_not_allowed');

  // Tokens minted over this URL are trusted by the gateway (issuer strings agree). Issue 15 item 1:
  // a local account's password login is the realm's password grant, so the issuer is the realm's.
  const login = await request(`${gwCfg.publicUrl}/v1/auth/login`, {
    dispatcher: pinned, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: ADMIN, password: PASSWORD }),
  });
  const tokens = await login.body.json() as { access_token: string };
  assert.equal(login.statusCode, 200);
  assert.equal(decodeJwt(tokens.access_token).iss, `${gwCfg.publicUrl}/idp/realms/svc`);
  const verify = await request(`${gwCfg.publicUrl}/v1/auth/verify`, { dispatcher: pinned, headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert.equal(verify.statusCode, 200);
  await verify.body.dump();

  // The enrollment URL names the public URL and carries the served fingerprint.
  const pairing = await request(`${gwCfg.publicUrl}/v1/account/devices/pairing`, { dispatcher: pinned, method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}` } });
  const { enrollment_url: enrollmentUrl } = await pairing.body.json() as { enrollment_url: string };
  assert.equal(pairing.statusCode, 201);
  assert.ok(enrollmentUrl.startsWith(`${gwCfg.publicUrl}/m/#pair?`), enrollmentUrl);
  assert.equal(new URLSearchParams(new URL(enrollmentUrl).hash.slice('#pair?'.length)).get('fp'), fingerprint);

  // Plain HTTP is not served on the LAN port.
  const plain = await fetch(`http://127.0.0.1:${ports.gateway}/v1/auth/config`).then((r) => r.status, () => 0);
  assert.notEqual(plain, 200);

  // A restart keeps the certificate: the fingerprint phones compared stays the same.
  await gw.close();
  gw = await startGateway(gwCfg);
  assert.equal(tlsFingerprintOf(dataDir), fingerprint);
  assert.equal(await servedFingerprint(publicUrl.hostname, ports.gateway), fingerprint);

  // A loopback gateway on the same data directory is plain HTTP and clears the fingerprint.
  const loop = await startGateway({ ...gwCfg, host: '127.0.0.1', port: 0, tls: null, publicUrl: 'http://127.0.0.1:8080' });
  t.after(() => loop.close());
  assert.equal(tlsFingerprintOf(dataDir), null);
  const r = await fetch(`http://127.0.0.1:${loop.port}/v1/auth/config`);
  assert.equal(r.status, 200);
});
