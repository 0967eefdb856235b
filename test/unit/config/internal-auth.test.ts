/**
 * main/config's service-token settings (issue 15 item 4; spec "Service-to-service", "Startup
 * guards"): per-data-dir client secrets, production without generated secrets, scale-out, the
 * slices of every service and the IdP's client list.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadStackConfig, serviceConfigs } from '../../../main/config/index.js';
import { SERVICE_NAMES, type ServiceName } from '../../../services/shared/services.js';

const KEY = 'k'.repeat(8) + '0123456789abcdef0123456789abcdef';
const dataDir = (): string => mkdtempSync(join(tmpdir(), 'svc-ia-'));
const ports = (): Record<ServiceName, number> => Object.fromEntries(SERVICE_NAMES.map((n, i) => [n, 31000 + i])) as Record<ServiceName, number>;
const CLIENTS = ['svc-web-password', ...SERVICE_NAMES.map((n) => `service-${n}`)];

test('outside production every client gets its own secret, generated once per data dir', () => {
  const dir = dataDir();
  const a = loadStackConfig({ SVC_DATA_DIR: dir });
  const b = loadStackConfig({ SVC_DATA_DIR: dir });
  assert.deepEqual(Object.keys(a.internalAuth.clientSecrets).sort(), [...CLIENTS].sort());
  assert.equal(new Set(Object.values(a.internalAuth.clientSecrets)).size, CLIENTS.length, 'no two clients share a secret');
  assert.deepEqual(b.internalAuth.clientSecrets, a.internalAuth.clientSecrets);
  const file = JSON.parse(readFileSync(join(dir, 'secrets', 'generated.json'), 'utf8')) as Record<string, string>;
  assert.equal(file['IDP_CLIENT_SECRET:service-gateway'], a.internalAuth.clientSecrets['service-gateway']);
  assert.notDeepEqual(loadStackConfig({ SVC_DATA_DIR: dataDir() }).internalAuth.clientSecrets, a.internalAuth.clientSecrets, 'another data dir, other secrets');

  const cfgs = serviceConfigs(a, ports());
  for (const name of SERVICE_NAMES) {
    const ia = cfgs[name].internalAuth!;
    assert.equal(ia.clientId, `service-${name}`);
    assert.equal(ia.clientSecret, a.internalAuth.clientSecrets[`service-${name}`]);
    assert.equal(ia.tokenUrl, `http://127.0.0.1:${ports().auth}/idp/realms/svc/protocol/openid-connect/token`);
    assert.equal(ia.jwksUrl, `http://127.0.0.1:${ports().auth}/idp/realms/svc/protocol/openid-connect/certs`);
    assert.equal(ia.issuer, `http://127.0.0.1:${ports().gateway}/idp/realms/svc`);
    assert.equal(ia.audience, 'svc-internal');
    assert.ok(ia.allowedClients && ia.allowedClients.length > 0, `${name}: an allow-list`);
  }
  assert.deepEqual(cfgs.dirauth.internalAuth!.allowedClients, ['service-gateway', 'service-auth'], 'only the gateway and auth reach dirauth');
  assert.ok(!cfgs['agent-runtime'].internalAuth!.allowedClients!.includes('service-memory'), 'memory produces no notifications');
  assert.ok(cfgs['agent-runtime'].internalAuth!.allowedClients!.includes('service-sandbox'));
  assert.ok(cfgs.memory.internalAuth!.allowedClients!.includes('service-agent-runtime'));
  assert.ok(!cfgs.memory.internalAuth!.allowedClients!.includes('svc-web-password'));
  const idp = cfgs.auth.idp!;
  assert.equal(idp.issuer, `http://127.0.0.1:${ports().gateway}/idp/realms/svc`);
  assert.equal(idp.webPasswordClientId, 'svc-web-password');
  assert.deepEqual(idp.clients.map((c) => c.clientId).sort(), [...CLIENTS].sort());
  assert.deepEqual(idp.frontendRedirectUris, [`http://127.0.0.1:${ports().gateway}/login/callback`]);
});

test('production generates nothing: password login without INTERNAL_AUTH_CLIENT_SECRET refuses to start; with it every client secret derives from it', () => {
  const prod = { SVC_DATA_DIR: dataDir(), SVC_ENV: 'production', SVC_PRINCIPAL_KEYS: KEY, SVC_CAPTOKEN_KEYS: KEY, AUDIT_SIGNING_KEY: KEY };
  assert.throws(() => loadStackConfig(prod), (e: Error) => e instanceof ConfigError && /INTERNAL_AUTH_CLIENT_SECRET/.test(e.message));
  assert.throws(() => loadStackConfig({ ...prod, SVC_PASSWORD_LOGIN_ENABLED: 'false' }), /INTERNAL_AUTH_CLIENT_SECRET/, 'service tokens need it too');
  assert.throws(() => loadStackConfig({ ...prod, INTERNAL_AUTH_CLIENT_SECRET: 'changeme' }), /INTERNAL_AUTH_CLIENT_SECRET/);
  const s = loadStackConfig({ ...prod, INTERNAL_AUTH_CLIENT_SECRET: `${KEY}x` });
  assert.equal(new Set(Object.values(s.internalAuth.clientSecrets)).size, CLIENTS.length);
  assert.ok(!Object.values(s.internalAuth.clientSecrets).includes(`${KEY}x`), 'derived, not the secret itself');
  assert.deepEqual(loadStackConfig({ ...prod, SVC_DATA_DIR: dataDir(), INTERNAL_AUTH_CLIENT_SECRET: `${KEY}x` }).internalAuth.clientSecrets, s.internalAuth.clientSecrets, 'the same on every host');
  // Off only by choice, and then password login still needs the secret.
  assert.equal(loadStackConfig({ ...prod, SVC_PASSWORD_LOGIN_ENABLED: 'false', INTERNAL_AUTH_ENABLED: 'false' }).internalAuth.enabled, false);
});

test('scale-out and overrides: INTERNAL_AUTH_CLIENT_ID / _SECRET, realm, audience, allow-list, token URL, web client id', () => {
  const s = loadStackConfig({
    SVC_DATA_DIR: dataDir(), INTERNAL_AUTH_CLIENT_ID: 'service-memory', INTERNAL_AUTH_CLIENT_SECRET: `${KEY}m`,
    INTERNAL_AUTH_AUDIENCE: 'internal-x', INTERNAL_AUTH_ALLOWED_CLIENTS: 'service-gateway, service-agent-runtime',
    INTERNAL_AUTH_TOKEN_URL: 'https://kc.example/realms/corp/protocol/openid-connect/token', INTERNAL_AUTH_INTROSPECTION_URL: 'https://kc.example/realms/corp/protocol/openid-connect/token/introspect',
    IDP_WEB_PASSWORD_CLIENT_ID: 'web-pw',
  });
  const m = serviceConfigs(s, ports()).memory.internalAuth!;
  assert.equal(m.clientId, 'service-memory');
  assert.equal(m.clientSecret, `${KEY}m`, 'the process client uses the secret verbatim');
  assert.equal(m.audience, 'internal-x');
  assert.deepEqual(m.allowedClients, ['service-gateway', 'service-agent-runtime']);
  assert.equal(m.issuer, 'https://kc.example/realms/corp');
  assert.equal(m.jwksUrl, 'https://kc.example/realms/corp/protocol/openid-connect/certs');
  assert.equal(m.introspectionUrl, 'https://kc.example/realms/corp/protocol/openid-connect/token/introspect');
  assert.equal(serviceConfigs(s, ports()).auth.idp!.webPasswordClientId, 'web-pw');
  const realm = loadStackConfig({ SVC_DATA_DIR: dataDir(), INTERNAL_AUTH_REALM: 'other' });
  assert.equal(serviceConfigs(realm, ports()).gateway.internalAuth!.issuer, `http://127.0.0.1:${ports().gateway}/idp/realms/other`);
  const off = loadStackConfig({ SVC_DATA_DIR: dataDir(), INTERNAL_AUTH_ENABLED: 'false' });
  assert.equal(serviceConfigs(off, ports()).memory.internalAuth, undefined, 'off: no tokens anywhere');
});
