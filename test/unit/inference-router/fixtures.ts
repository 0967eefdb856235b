/**
 * Fixtures shared by the router and observability tests: config slices on port 0 with temp data
 * dirs, and principal stamps as the gateway would send them.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { signStamp, type Principal } from '../../../services/shared/identity/principal.js';
import { SERVICE_NAMES, type ServiceName } from '../../../services/shared/services.js';
import type { CommonServiceConfig } from '../../../services/shared/config.js';
import type { RouterConfig } from '../../../services/inference-router/src/contracts.js';
import type { ObservabilityConfig } from '../../../services/observability/src/contracts.js';

/** Keys shared by the services of one test. */
export interface TestKeys { principalKeys: string[]; capTokenKeys: string[] }

/** Fresh random keys. */
export function testKeys(): TestKeys {
  return { principalKeys: [randomBytes(32).toString('hex')], capTokenKeys: [randomBytes(32).toString('hex')] };
}

function common<S extends ServiceName>(service: S, keys: TestKeys, urls: Partial<Record<ServiceName, string>>): CommonServiceConfig & { service: S } {
  const dataDir = mkdtempSync(join(tmpdir(), `svc-${service}-`));
  const serviceUrls = {} as Record<ServiceName, string>;
  for (const n of SERVICE_NAMES) serviceUrls[n] = urls[n] ?? 'http://127.0.0.1:9';
  return {
    service, host: '127.0.0.1', port: 0, env: 'test', dataDir, dbDir: join(dataDir, 'db'), objectsDir: join(dataDir, 'objects'), logDir: join(dataDir, 'logs'),
    migrationsDir: join(process.cwd(), 'migrations'), logLevel: 'warn', tenantId: 'acme', publicUrl: 'http://127.0.0.1:8080',
    principalKeys: keys.principalKeys, capTokenKeys: keys.capTokenKeys, authEnabled: true, serviceUrls,
  };
}

/** An observability slice. */
export function obsConfig(keys: TestKeys, over: Partial<ObservabilityConfig> = {}): ObservabilityConfig {
  return { ...common('observability', keys, {}), localPrices: {}, pricingModelsUrl: null, pricingTimeoutMs: 5000, traceRetentionDays: 7, ...over };
}

/** A router slice whose observability (and audit) live at the given URLs. */
export function routerConfig(keys: TestKeys, urls: Partial<Record<ServiceName, string>>, over: Partial<RouterConfig> = {}): RouterConfig {
  const c = common('inference-router', keys, urls);
  return {
    ...c, modelsDir: join(c.dataDir, 'models'), localEngineEnabled: true, localThreads: 2, localContextSize: 256, localMaxTokens: 32,
    snapshotRefreshSeconds: 30, cooldownSeconds: 30, probeTimeoutMs: 2000, upstreamTimeoutMs: 10_000, budgetCacheMs: 0,
    // Tests never write into a developer's real keyring; test/integration/keychain.test.ts overrides this.
    secretStore: 'file', ...over,
  };
}

/** A stamped principal header, as the gateway sends it. */
export function stamp(keys: TestKeys, over: Partial<Principal> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  return signStamp({ id: 'user-1', tenant_id: 'acme', roles: ['user'], groups: [], auth_method: 'password', iat: now, exp: now + 300, ...over } satisfies Principal, keys.principalKeys);
}

/** Poll `fn` until it returns a value (not undefined) or `ms` pass. */
export async function eventually<T>(fn: () => Promise<T | undefined>, ms = 2000, step = 25): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, step));
  }
}
