/**
 * Shared fixtures for the auth tests: a test AuthConfig, an in-memory store with every domain
 * service wired, a fake clock, an in-memory key.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { HandoffService } from '../../services/auth/src/domain/handoff.js';
import { LoginService, type LoginSettings } from '../../services/auth/src/domain/login.js';
import { PasswordHasher } from '../../services/auth/src/domain/passwords.js';
import type { HandoffFile, UserRecord } from '../../services/auth/src/domain/ports.js';
import { TokenService, type SigningKey } from '../../services/auth/src/domain/tokens.js';
import { UserService } from '../../services/auth/src/domain/users.js';
import { openAuthStore } from '../../services/auth/src/store/auth-store.js';
import type { AuthConfig, GatewayConfig } from '../../services/shared/config.js';
import { gatewayConfig } from './gateway-config.js';
import { ClientHopSigner, CLIENT_HOP_HEADER } from '../../services/shared/identity/client-hop.js';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';

/** Repository `migrations/` from dist/test/helpers. */
export const MIGRATIONS = fileURLToPath(new URL('../../../migrations', import.meta.url));
export const ISSUER = 'http://127.0.0.1:8080/auth';

/** Bootstrap admin of `authConfig`. */
export const ADMIN_EMAIL = 'Root@Example.test';
export const ADMIN_PASSWORD = 'correct horse battery staple';

/**
 * An AuthConfig for tests on port 0 under `dataDir`: a bootstrap admin, scrypt N = 1024, 3 failures
 * per account and 6 per IP in a 60 s window, one external IdP.
 */
export function authConfig(dataDir: string, over: Partial<AuthConfig> = {}): AuthConfig {
  const serviceUrls = Object.fromEntries(SERVICE_NAMES.map((n) => [n, 'http://127.0.0.1:9'])) as Record<ServiceName, string>;
  return {
    service: 'auth', host: '127.0.0.1', port: 0, env: 'test', dataDir,
    dbDir: join(dataDir, 'db'), objectsDir: join(dataDir, 'objects'), logDir: join(dataDir, 'logs'),
    migrationsDir: MIGRATIONS, logLevel: 'info', tenantId: 't-test', publicUrl: 'http://127.0.0.1:8080',
    principalKeys: [randomBytes(32).toString('hex')], capTokenKeys: [randomBytes(32).toString('hex')],
    authEnabled: true, serviceUrls,
    issuer: ISSUER, audience: 'svc-frontend', passwordLoginEnabled: true,
    bootstrapAdminEmail: ADMIN_EMAIL, bootstrapAdminPassword: ADMIN_PASSWORD,
    accessTokenTtlSeconds: 600, refreshTokenTtlSeconds: 3600,
    loginMaxFailuresPerAccount: 3, loginMaxFailuresPerIp: 6, loginThrottleWindowSeconds: 60,
    externalIdps: [{ name: 'corp', issuer: 'https://idp.example.test/realms/corp' }],
    scryptN: 1024,
    ...over,
  };
}

/**
 * A gateway configuration in front of a running auth service at `authBase`: same tenant and stamp
 * keys as `authCfg`, trusting auth's embedded issuer (`ISSUER`, its JWKS), auth routed to it, every
 * other service a dead port.
 */
export function gatewayForAuth(authCfg: AuthConfig, authBase: string): GatewayConfig {
  const jwksUrl = `${authBase}/.well-known/jwks.json`;
  const cfg = gatewayConfig('http://127.0.0.1:9', jwksUrl, {
    tenantId: authCfg.tenantId, principalKeys: authCfg.principalKeys, capTokenKeys: authCfg.capTokenKeys,
    trustedIssuers: [{ issuer: ISSUER, jwksUrl, algorithms: ['ES256'] }],
  });
  cfg.serviceUrls = { ...cfg.serviceUrls, auth: authBase };
  return cfg;
}

/** A settable clock (Unix ms). */
export function fakeClock(start = Date.UTC(2030, 0, 1)): { now: () => number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance(ms: number) { t += ms; } };
}

/** An ES256 key that never touches disk. */
export async function memoryKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub, 'sha256');
  return { kid, privateKey, publicJwk: { ...pub, kid, alg: 'ES256', use: 'sig' } };
}

/** A handoff file kept in memory. */
export class MemoryHandoffFile implements HandoffFile {
  doc: { handoff_id: string; created_at: string } | null = null;
  write(doc: { handoff_id: string; created_at: string }): void { this.doc = doc; }
  exists(): boolean { return this.doc !== null; }
  remove(): void { this.doc = null; }
}

/** Every domain service wired over an in-memory SQLite store. */
export async function world(login: Partial<LoginSettings> = {}) {
  const store = openAuthStore({ dbDir: ':memory:', migrationsDir: MIGRATIONS });
  const clock = fakeClock();
  const hasher = new PasswordHasher(1024);
  const { users, refresh, failures, throttle, revocations, handoffs } = store;
  const tx = store.txAsync;
  const reused: Array<{ user_id: string; family_id: string }> = [];
  const key = await memoryKey();
  const tokens = new TokenService({
    key, users, refresh, tx, clock: clock.now, revocations,
    settings: { issuer: ISSUER, audience: 'svc-frontend', accessTokenTtlSeconds: 300, refreshTokenTtlSeconds: 3600 },
    onReuse: (i) => reused.push(i),
  });
  const file = new MemoryHandoffFile();
  const handoff = new HandoffService({ users, handoffs, file, tokens, tx, clock: clock.now });
  const loginService = new LoginService({
    settings: { passwordLoginEnabled: true, loginMaxFailuresPerAccount: 3, loginMaxFailuresPerIp: 5, loginThrottleWindowSeconds: 60, ...login },
    users, failures, throttle, hasher, tokens, tx, clock: clock.now,
  });
  const userService = new UserService({ users, hasher, tokens, clock: clock.now });
  return { store, clock, key, hasher, tokens, file, handoff, login: loginService, users: userService, reused };
}

/** Insert a user directly. */
export async function addUser(w: Awaited<ReturnType<typeof world>>, email: string, password: string | null, roles = ['user']): Promise<UserRecord> {
  const now = new Date(w.clock.now()).toISOString();
  const u: UserRecord = {
    id: `01TEST${email.length}${Math.random().toString(36).slice(2, 10)}`.toUpperCase(), email, display_name: email, roles, disabled: false,
    password_hash: password === null ? null : await w.hasher.hash(password), created_at: now, updated_at: now,
  };
  await w.store.users.insert(u);
  return u;
}

/** The AppError code a promise rejects with. */
export async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<string | undefined> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
}

/**
 * The `X-Svc-Client` hop header the gateway adds for client address `ip` (issue 11 item 2), for
 * tests that call the auth service's port directly as if through the gateway.
 */
export function gatewayHop(principalKeys: readonly string[], ip: string): Record<string, string> {
  return { [CLIENT_HOP_HEADER]: new ClientHopSigner(principalKeys).stamp(ip)! };
}
