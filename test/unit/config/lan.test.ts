/**
 * HTTPS on the LAN in main/config (issue 14 item 7): loopback binds stay plain HTTP with the public
 * URL they had; a wildcard or LAN bind serves HTTPS, its public URL is `SVC_PUBLIC_URL` or the first
 * non-internal IPv4 address, the auth issuer follows it, and the certificate names it;
 * `SVC_TLS_CERT_FILE` and `SVC_TLS_KEY_FILE` go together.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NetworkInterfaceInfo } from 'node:os';
import { ConfigError, loadStackConfig, serviceConfigs } from '../../../main/config/index.js';
import { isLoopbackHost, isWildcardHost, lanAddresses, lanPublicHost } from '../../../main/config/lan.js';
import { SERVICE_NAMES, type ServiceName } from '../../../services/shared/services.js';

const dataDir = (): string => mkdtempSync(join(tmpdir(), 'svc-lan-'));
const ports = Object.fromEntries(SERVICE_NAMES.map((n, i) => [n, 31000 + i])) as Record<ServiceName, number>;

const iface = (address: string, family: 'IPv4' | 'IPv6', internal = false): NetworkInterfaceInfo =>
  ({ address, family, internal, netmask: '', mac: '', cidr: null, ...(family === 'IPv6' ? { scopeid: 0 } : {}) }) as NetworkInterfaceInfo;

test('lanAddresses: non-internal IPv4 first, then IPv6 without link-local', () => {
  const got = lanAddresses({
    lo: [iface('127.0.0.1', 'IPv4', true), iface('::1', 'IPv6', true)],
    eth0: [iface('fd00::2', 'IPv6'), iface('fe80::1', 'IPv6'), iface('192.0.2.2', 'IPv4')],
    wlan0: [iface('198.51.100.4', 'IPv4')],
  });
  assert.deepEqual(got, ['192.0.2.2', '198.51.100.4', 'fd00::2']);
});

test('loopback, wildcard and the derived public host', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) assert.equal(isLoopbackHost(h), true, h);
  for (const h of ['0.0.0.0', '::', '192.0.2.2', 'workstation.lan']) assert.equal(isLoopbackHost(h), false, h);
  assert.equal(isWildcardHost('0.0.0.0') && isWildcardHost('::'), true);
  assert.equal(lanPublicHost('0.0.0.0', ['fd00::2', '192.0.2.2']), '192.0.2.2');
  assert.equal(lanPublicHost('0.0.0.0', []), '127.0.0.1');
  assert.equal(lanPublicHost('192.0.2.9', ['192.0.2.2']), '192.0.2.9', 'a bind address naming one interface is the public host');
  assert.equal(lanPublicHost('fd00::5', []), '[fd00::5]');
});

test('a loopback bind stays plain HTTP: public URL, issuers and no TLS as before', () => {
  const cfgs = serviceConfigs(loadStackConfig({ SVC_DATA_DIR: dataDir() }), ports);
  assert.equal(cfgs.gateway.publicUrl, `http://127.0.0.1:${ports.gateway}`);
  assert.equal(cfgs.gateway.serviceUrls.gateway, `http://127.0.0.1:${ports.gateway}`);
  assert.equal(cfgs.gateway.tls, null);
  assert.equal(cfgs.auth.issuer, `http://127.0.0.1:${ports.gateway}/auth`);
});

test('a LAN bind serves HTTPS: the public URL names the bind address, auth issues under it, the certificate covers it', () => {
  const cfgs = serviceConfigs(loadStackConfig({ SVC_DATA_DIR: dataDir(), SVC_BIND_HOST: '192.0.2.2' }), ports);
  const pub = `https://192.0.2.2:${ports.gateway}`;
  assert.equal(cfgs.gateway.publicUrl, pub);
  assert.equal(cfgs.auth.publicUrl, pub);
  assert.equal(cfgs.auth.issuer, `${pub}/auth`);
  assert.equal(cfgs.gateway.trustedIssuers[0]!.issuer, `${pub}/auth`);
  assert.equal(cfgs.gateway.serviceUrls.gateway, `https://192.0.2.2:${ports.gateway}`);
  assert.equal(cfgs.gateway.serviceUrls.auth, `http://127.0.0.1:${ports.auth}`, 'services behind the gateway stay on loopback');
  assert.equal(cfgs.auth.host, '127.0.0.1', 'only the gateway faces the network: the device routes are reached over its HTTPS only');
  assert.equal(cfgs.gateway.host, '192.0.2.2');
  assert.deepEqual(cfgs.gateway.tls?.hosts[0], '192.0.2.2');
  assert.equal(cfgs.gateway.tls?.certFile, null);
});

test('SVC_PUBLIC_URL wins off loopback; the operator files reach the gateway; they go together', () => {
  const d = dataDir();
  writeFileSync(join(d, 'c.pem'), 'x');
  writeFileSync(join(d, 'k.pem'), 'x');
  const stack = loadStackConfig({ SVC_DATA_DIR: d, SVC_BIND_HOST: '0.0.0.0', SVC_PUBLIC_URL: 'https://svc.example.lan:8443/', SVC_TLS_CERT_FILE: join(d, 'c.pem'), SVC_TLS_KEY_FILE: join(d, 'k.pem') });
  const cfgs = serviceConfigs(stack, ports);
  assert.equal(cfgs.gateway.publicUrl, 'https://svc.example.lan:8443');
  assert.equal(cfgs.auth.issuer, 'https://svc.example.lan:8443/auth');
  assert.deepEqual({ ...cfgs.gateway.tls, hosts: cfgs.gateway.tls!.hosts[0] }, { certFile: join(d, 'c.pem'), keyFile: join(d, 'k.pem'), hosts: 'svc.example.lan' });
  for (const env of [{ SVC_TLS_CERT_FILE: join(d, 'c.pem') }, { SVC_TLS_KEY_FILE: join(d, 'k.pem') }, { SVC_TLS_CERT_FILE: join(d, 'nope'), SVC_TLS_KEY_FILE: join(d, 'k.pem') }]) {
    assert.throws(() => loadStackConfig({ SVC_DATA_DIR: d, ...env }), (e: unknown) => e instanceof ConfigError && /SVC_TLS_(CERT|KEY)_FILE/.test(e.message), JSON.stringify(env));
  }
});
