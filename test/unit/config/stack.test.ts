/**
 * main/config/index.ts: `loadStackConfig` (defaults, first-start secrets, startup guards whose
 * messages name the variable) and `serviceConfigs` (per-service slices with the typed settings
 * merged in).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadStackConfig, parseGroupRoleMap, serviceConfigs } from '../../../main/config/index.js';
import { lanAddresses, lanPublicHost } from '../../../main/config/lan.js';
import { DEFAULT_PORTS, SERVICE_NAMES, type ServiceName } from '../../../services/shared/services.js';

const KEY = 'R4nd0mK3yMaterial-0123456789abcdefXYZ';

function dataDir(): string {
  return mkdtempSync(join(tmpdir(), 'svc-cfg-'));
}

/** Assert loading `env` refuses with a ConfigError naming `variable`. */
function refuses(env: Record<string, string>, variable: string): void {
  assert.throws(() => loadStackConfig({ SVC_DATA_DIR: dataDir(), SVC_ENV: 'test', ...env }), (err: unknown) => err instanceof ConfigError && err.message.includes(variable), `expected a ConfigError naming ${variable}`);
}

test('defaults of a laptop install with no configuration', () => {
  const dir = dataDir();
  const s = loadStackConfig({ SVC_DATA_DIR: dir });
  assert.equal(s.env, 'development');
  assert.equal(s.host, '127.0.0.1');
  assert.equal(s.dataDir, dir);
  assert.deepEqual(s.ports, DEFAULT_PORTS);
  assert.equal(s.tenantId, 'default');
  assert.equal(s.logLevel, 'info');
  assert.equal(s.publicUrl, null);
  assert.equal(s.authEnabled, true);
  assert.equal(s.passwordLoginEnabled, true);
  assert.deepEqual(s.gateway, {
    maxRequestBodyBytes: 26_214_400, rateLimitIpPerMinute: 600, rateLimitTenantPerMinute: 3000, redisUrl: null,
    externalIssuers: [], adminEmailAllowlist: [], groupRoleMap: {}, trustProxy: false, allowedHosts: [], instanceUrl: null,
    tlsCertFile: null, tlsKeyFile: null,
  });
  assert.equal(s.auth.accessTokenTtlSeconds, 900);
  assert.equal(s.auth.refreshTokenTtlSeconds, 30 * 86_400);
  assert.equal(s.auth.scryptN, 32768);
  assert.equal(s.audit.keyVersion, 'v1');
  assert.equal(s.audit.sealIntervalSeconds, 10);
  assert.deepEqual(s.supervisor, { readyTimeoutMs: 30_000, shutdownTimeoutMs: 10_000, maxRestartBackoffMs: 30_000 });
  assert.equal(s.extras.guardrail.classifierTimeoutMs, 3000);
  assert.equal(s.extras['agent-runtime'].defaultAgentId, 'default');
  assert.ok(Object.isFrozen(s) && Object.isFrozen(s.gateway) && Object.isFrozen(s.extras.knowledge));
});

test('first-start secrets are generated once, kept mode 0600, and reused', () => {
  const dir = dataDir();
  const a = loadStackConfig({ SVC_DATA_DIR: dir });
  const b = loadStackConfig({ SVC_DATA_DIR: dir });
  assert.equal(a.principalKeys.length, 1);
  assert.ok(a.principalKeys[0]!.length >= 32);
  assert.notEqual(a.principalKeys[0], a.capTokenKeys[0]);
  assert.deepEqual(b.principalKeys, a.principalKeys);
  assert.equal(b.audit.signingKey, a.audit.signingKey);
  const file = join(dir, 'secrets', 'generated.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  // Issue 15 item 4: the secret of every confidential IdP client is generated beside the keys.
  const clients = ['svc-web-password', ...SERVICE_NAMES.map((n) => `service-${n}`)].map((id) => `IDP_CLIENT_SECRET:${id}`);
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(file, 'utf8'))).sort(), ['AUDIT_SIGNING_KEY', ...clients, 'SVC_CAPTOKEN_KEYS', 'SVC_PRINCIPAL_KEYS'].sort());
  assert.deepEqual(b.internalAuth.clientSecrets, a.internalAuth.clientSecrets, 'client secrets are kept per data dir');
});

test('explicit values are read: environment name, ports, lists, issuers', () => {
  const s = loadStackConfig({
    SVC_DATA_DIR: dataDir(), APP_ENV: 'prod', SVC_PRINCIPAL_KEYS: `${KEY}1, ${KEY}2`, SVC_CAPTOKEN_KEYS: `${KEY}3`, AUDIT_SIGNING_KEY: `${KEY}4`,
    SVC_PASSWORD_LOGIN_ENABLED: 'false', SVC_GATEWAY_PORT: '0', SVC_PUBLIC_URL: 'https://svc.example///',
    // Issue 15 item 4: production generates no secret, service tokens need the operator's.
    INTERNAL_AUTH_CLIENT_SECRET: `${KEY}5`,
    SVC_ADMIN_EMAIL_ALLOWLIST: 'Boss@Example.com, ops@example.com', SVC_GROUP_ROLE_MAP: 'Admins:admin,Admins:admin,Ops:user',
    OIDC_ISSUER: 'https://idp.example', OIDC_JWKS_URL: 'https://idp.example/jwks',
  });
  assert.equal(s.env, 'production');
  assert.deepEqual(s.principalKeys, [`${KEY}1`, `${KEY}2`]);
  assert.equal(s.ports.gateway, 0);
  assert.equal(s.publicUrl, 'https://svc.example');
  assert.deepEqual(s.gateway.adminEmailAllowlist, ['boss@example.com', 'ops@example.com']);
  assert.deepEqual(s.gateway.groupRoleMap, { Admins: ['admin'], Ops: ['user'] });
  assert.deepEqual(s.gateway.externalIssuers, [{ issuer: 'https://idp.example', jwksUrl: 'https://idp.example/jwks', algorithms: ['RS256', 'ES256'] }]);
});

test('startup guards refuse and name the variable to set', () => {
  const prod = { SVC_ENV: 'production', SVC_PRINCIPAL_KEYS: KEY, SVC_CAPTOKEN_KEYS: KEY, AUDIT_SIGNING_KEY: KEY, SVC_PASSWORD_LOGIN_ENABLED: 'false' };
  refuses({ ...prod, SVC_AUTH_ENABLED: 'false' }, 'SVC_ALLOW_AUTH_DISABLED');
  refuses({ ...prod, SVC_PASSWORD_LOGIN_ENABLED: 'true' }, 'INTERNAL_AUTH_CLIENT_SECRET');
  refuses({ ...prod, SVC_PRINCIPAL_KEYS: '' }, 'SVC_PRINCIPAL_KEYS');
  refuses({ SVC_CAPTOKEN_KEYS: 'short' }, 'SVC_CAPTOKEN_KEYS');
  refuses({ SVC_GATEWAY_INSTANCE_URL: 'gateway-2:8080' }, 'SVC_GATEWAY_INSTANCE_URL');
  assert.equal(loadStackConfig({ SVC_DATA_DIR: dataDir(), SVC_GATEWAY_INSTANCE_URL: 'http://gateway-2:8080/' }).gateway.instanceUrl, 'http://gateway-2:8080');
  refuses({ SVC_PRINCIPAL_KEYS: 'changeme-changeme-changeme-changeme' }, 'SVC_PRINCIPAL_KEYS');
  refuses({ ...prod, AUDIT_SIGNING_KEY: '' }, 'AUDIT_SIGNING_KEY');
  refuses({ AUDIT_SIGNING_KEY: 'too-short' }, 'AUDIT_SIGNING_KEY');
  refuses({ AUDIT_SIGNING_KEY: 'placeholder-placeholder-placeholder' }, 'AUDIT_SIGNING_KEY');
  refuses({ AUDIT_SIGNING_KEY_PREVIOUS: KEY }, 'AUDIT_KEY_VERSION_PREVIOUS');
  refuses({ AUDIT_SIGNING_KEY_PREVIOUS: KEY, AUDIT_KEY_VERSION_PREVIOUS: 'v1' }, 'AUDIT_KEY_VERSION_PREVIOUS');
  refuses({ SVC_GATEWAY_PORT: '70000' }, 'SVC_GATEWAY_PORT');
  refuses({ SVC_AGENT_RUNTIME_PORT: 'x' }, 'SVC_AGENT_RUNTIME_PORT');
  refuses({ SVC_BOOTSTRAP_ADMIN_EMAIL: 'a@example.com' }, 'SVC_BOOTSTRAP_ADMIN_PASSWORD');
  refuses({ SVC_BOOTSTRAP_ADMIN_EMAIL: 'a@example.com', SVC_BOOTSTRAP_ADMIN_PASSWORD: 'short' }, 'SVC_BOOTSTRAP_ADMIN_PASSWORD');
  refuses({ SVC_SCRYPT_N: '3000' }, 'SVC_SCRYPT_N');
  refuses({ SVC_TRUSTED_ISSUERS: '{' }, 'SVC_TRUSTED_ISSUERS');
  refuses({ SVC_TRUSTED_ISSUERS: '[{"issuer": 1}]' }, 'SVC_TRUSTED_ISSUERS');
  refuses({ OIDC_ISSUER: 'https://idp.example' }, 'OIDC_JWKS_URL');
  refuses({ SVC_GROUP_ROLE_MAP: 'Admins' }, 'SVC_GROUP_ROLE_MAP');
  refuses({ SVC_TRUST_PROXY: 'perhaps' }, 'SVC_TRUST_PROXY');
  // A per-service reader's refusal stops the stack too.
  refuses({ KNOWLEDGE_CHUNK_OVERLAP_CHARS: '5000' }, 'KNOWLEDGE_CHUNK_OVERLAP_CHARS');
});

test('parseGroupRoleMap: Group:role pairs, last colon splits, roles deduplicated', () => {
  assert.deepEqual(parseGroupRoleMap('CN=A:B:admin, X:user,X:admin,X:user'), { 'CN=A:B': ['admin'], X: ['user', 'admin'] });
  assert.deepEqual(parseGroupRoleMap(undefined), {});
  assert.throws(() => parseGroupRoleMap(':admin'), ConfigError);
  assert.throws(() => parseGroupRoleMap('Group:'), ConfigError);
  // Issue 11 item 1: groups map only onto account roles.
  assert.deepEqual(parseGroupRoleMap('A:tenant_admin,B:platform_admin'), { A: ['tenant_admin'], B: ['platform_admin'] });
  assert.throws(() => parseGroupRoleMap('Bots:service-account'), /SVC_GROUP_ROLE_MAP may map groups only onto user, admin, tenant_admin, platform_admin/);
  assert.throws(() => parseGroupRoleMap('X:auditor'), ConfigError);
});

test('serviceConfigs: every slice has the common settings; plain slices carry their typed settings', () => {
  const stack = loadStackConfig({ SVC_DATA_DIR: dataDir(), SVC_BIND_HOST: '0.0.0.0', SVC_TENANT_ID: 'acme', SVC_GUARDRAIL_DEID_RETENTION_HOURS: '5' });
  const ports = {} as Record<ServiceName, number>;
  SERVICE_NAMES.forEach((n, i) => { ports[n] = 30000 + i; });
  const cfgs = serviceConfigs(stack, ports);
  // Issue 14 item 7: off loopback the gateway serves HTTPS and the public URL names the LAN address.
  const publicUrl = `https://${lanPublicHost('0.0.0.0', lanAddresses())}:${ports.gateway}`;
  assert.deepEqual(Object.keys(cfgs).sort(), [...SERVICE_NAMES].sort());
  for (const name of SERVICE_NAMES) {
    const c = cfgs[name];
    assert.equal(c.service, name);
    assert.equal(c.port, ports[name]);
    assert.equal(c.host, name === 'gateway' ? '0.0.0.0' : '127.0.0.1', 'off loopback only the gateway faces the network');
    assert.equal(c.tenantId, 'acme');
    assert.equal(c.dbDir, join(stack.dataDir, 'db'));
    assert.equal(c.serviceUrls[name], `${name === 'gateway' ? 'https' : 'http'}://127.0.0.1:${ports[name]}`, 'a wildcard bind is called on loopback');
    assert.equal(c.publicUrl, publicUrl);
  }
  assert.equal(cfgs.guardrail.deidRetentionHours, 5);
  assert.equal(cfgs.guardrail.classifierTimeoutMs, 3000);
  assert.equal(cfgs['agent-runtime'].maxToolSteps, 8);
  assert.equal(cfgs['inference-router'].secretStore, 'auto');
  const knowledge = cfgs.knowledge;
  assert.equal(knowledge.chunkChars, 2000);
  assert.notEqual(knowledge.modelDirs, stack.extras.knowledge.modelDirs, 'a copy, not the frozen stack value');
  assert.equal(Object.isFrozen(knowledge.modelDirs), false);
  const gw = cfgs.gateway;
  assert.equal(gw.service, 'gateway');
  assert.deepEqual(gw.trustedIssuers.map((i) => i.issuer), [`${publicUrl}/auth`, `${publicUrl}/dirauth`, `${publicUrl}/idp/realms/svc`]);
  assert.equal(gw.trustedIssuers[2]!.jwksUrl.endsWith('/idp/realms/svc/protocol/openid-connect/certs'), true, 'the realm JWKS is fetched from auth directly');
  assert.equal(gw.tls?.certFile, null);
  assert.ok(gw.tls?.hosts.includes(new URL(publicUrl).hostname), 'the certificate names the public host');
  assert.equal(gw.audience, 'svc-frontend');
  const auth = cfgs.auth;
  assert.equal(auth.service, 'auth');
  assert.equal(auth.issuer, `${publicUrl}/auth`, 'auth issues under the same public URL the gateway trusts');
  const audit = cfgs.audit;
  assert.equal(audit.service, 'audit');
  assert.equal(audit.signingKey, stack.audit.signingKey);
});
