/**
 * Test scaffolding of the audit service (unit and integration tests, the crash-test child, the
 * golden-fixture generator): a config on a temp data dir, signed principal headers, event builders
 * shaped like the turn-event client's, a JSON call helper, and the repository folders tests read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monotonicFactory } from 'ulid';
import type { AuditConfig } from '../../services/shared/config.js';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';
import { signStamp, type Principal } from '../../services/shared/identity/principal.js';
import type { TurnEvent, TurnPayloadType } from '../../services/shared/events/turn-events.js';

/** Repository root (dist/test/helpers -> three levels up from the compiled file). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
/** The shared assets folder, read in place (never copied into the repo). */
export const SHARED_ASSETS = resolve(REPO_ROOT, '../shared/assets');
/** Golden fixture folder in the source tree (JSON data, not compiled). */
export const FIXTURE_DIR = resolve(REPO_ROOT, 'test/fixtures/audit');

/** HMAC key of the test principals. */
export const PRINCIPAL_KEY = 'test-principal-key-0123456789abcdef0123456789';
/** Audit signing key `v1`. */
export const KEY_V1 = 'k1-9f8e7d6c5b4a39281706f5e4d3c2b1a0-audit-key';
/** Audit signing key `v2` (rotation tests). */
export const KEY_V2 = 'k2-0a1b2c3d4e5f60718293a4b5c6d7e8f9-audit-key';
/** The pinned tenant of the test configs. */
export const TENANT = 'tenant-pinned';

/** An audit config on a fresh temp dir (or `dataDir`). */
export function auditConfig(overrides: Partial<AuditConfig> = {}, dataDir?: string): AuditConfig {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'audit-test-'));
  const urls = Object.fromEntries(SERVICE_NAMES.map((n) => [n, 'http://127.0.0.1:9'])) as Record<ServiceName, string>;
  return {
    service: 'audit', host: '127.0.0.1', port: 0, env: 'test', dataDir: dir, dbDir: join(dir, 'db'), objectsDir: join(dir, 'objects'),
    logDir: join(dir, 'logs'), migrationsDir: join(REPO_ROOT, 'migrations'), logLevel: 'warn', tenantId: TENANT,
    publicUrl: 'http://127.0.0.1:8080', principalKeys: [PRINCIPAL_KEY], capTokenKeys: ['cap-key-0123456789abcdef0123456789abcdef'],
    authEnabled: true, serviceUrls: urls, signingKey: KEY_V1, keyVersion: 'v1', previousSigningKey: null, previousKeyVersion: null,
    sealIntervalSeconds: 10, sealWatermarkSeconds: 300, sealBatchLimit: 100, ...overrides,
  };
}

/** Remove a temp data dir. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A principal for tests. */
export function principal(id: string, roles: string[], tenantId: string = TENANT): Principal {
  const now = Math.floor(Date.now() / 1000);
  return { id, tenant_id: tenantId, roles, groups: [], auth_method: roles.includes('service-account') ? 'service' : 'password', iat: now, exp: now + 300 };
}

/** Headers carrying a signed principal. */
export function headersFor(p: Principal): Record<string, string> {
  return { 'x-svc-principal': signStamp(p, [PRINCIPAL_KEY]), 'content-type': 'application/json' };
}

/** Headers of an admin user. */
export const ADMIN = () => headersFor(principal('admin-1', ['admin', 'user']));
/** Headers of the gateway's service account. */
export const SERVICE = () => headersFor(principal('service:gateway', ['service-account']));
/** Headers of a plain user (`user-1` by default). */
export const USER = (id = 'user-1') => headersFor(principal(id, ['user']));

const ulid = monotonicFactory();
let seq = 0;

/** A new ULID. */
export function newId(): string { return ulid(); }

/** A wire turn event like the gateway's client emits. */
export function event(turnId: string, type: TurnPayloadType, payload: unknown = {}, opts: Partial<TurnEvent> = {}): TurnEvent {
  return {
    turn_id: turnId, event_id: ulid(), tenant_id: TENANT, principal_id: 'user-1', emitter_service: 'gateway', emitter_instance: 'inst-1',
    occurred_at: new Date().toISOString(), sequence_in_service: ++seq, payload_type: type, payload_json: JSON.stringify(payload), ...opts,
  };
}

/** fetch JSON helper: returns status and parsed body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
export async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* keep text */ }
  return { status: res.status, body: parsed, headers: res.headers };
}
