/**
 * Complete configs of the inference router and observability for tests, built the way main/config
 * builds them: the common slice on a fresh temp data dir (port 0), then the service's settings from
 * its main/config reader with an empty environment (the defaults live only there), then the test's
 * values and overrides; plus random keys, gateway-style principal stamps, and polling.
 * (Moved from test/unit/inference-router/fixtures.ts, issue 10.)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { inferenceRouterSettings } from '../../main/config/services/inference-router.js';
import { observabilitySettings } from '../../main/config/services/observability.js';
import type { ExtrasContext } from '../../main/config/services/types.js';
import { signStamp, type Principal } from '../../services/shared/identity/principal.js';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';
import type { CommonServiceConfig } from '../../services/shared/config.js';
import type { RouterConfig } from '../../services/inference-router/src/contracts.js';
import type { ObservabilityConfig } from '../../services/observability/src/contracts.js';

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

/** What the settings readers know beyond the environment (tests run from the repository root). */
function readerContext(dataDir: string): ExtrasContext {
  return { dataDir, repoRoot: process.cwd(), production: false };
}

/** An observability config: main/config's defaults, a 5 s pricing timeout, then `over`. */
export function obsConfig(keys: TestKeys, over: Partial<ObservabilityConfig> = {}): ObservabilityConfig {
  const c = common('observability', keys, {});
  return { ...c, ...observabilitySettings({}, readerContext(c.dataDir)), pricingTimeoutMs: 5000, ...over };
}

/**
 * A router config whose observability (and audit) live at the given URLs: main/config's defaults,
 * then test values (models under the data dir, a small local context, short timeouts, no budget
 * cache, keys in the encrypted file), then `over`.
 */
export function routerConfig(keys: TestKeys, urls: Partial<Record<ServiceName, string>>, over: Partial<RouterConfig> = {}): RouterConfig {
  const c = common('inference-router', keys, urls);
  return {
    ...c, ...inferenceRouterSettings({}, readerContext(c.dataDir)),
    modelsDir: join(c.dataDir, 'models'), localContextSize: 256, localMaxTokens: 32, probeTimeoutMs: 2000, upstreamTimeoutMs: 10_000, budgetCacheMs: 0,
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
