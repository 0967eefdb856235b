/**
 * Complete service configs for tests, built the way main/config builds them: the common slice on a
 * temp data dir, then the service's settings from its main/config reader with an empty environment
 * (so the defaults are the ones that live in main/config/services/<svc>.ts), then the test's
 * overrides. Keys are test keys; every other service's URL is a closed port unless given.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { guardrailSettings } from '../../main/config/services/guardrail.js';
import { memorySettings } from '../../main/config/services/memory.js';
import type { ExtrasContext } from '../../main/config/services/types.js';
import type { GuardrailConfig } from '../../services/guardrail/src/contracts.js';
import type { MemoryConfig } from '../../services/memory/src/contracts.js';
import type { CommonServiceConfig } from '../../services/shared/config.js';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';

/** Repository root (dist/test/helpers -> three levels up from the compiled file). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

/** HMAC key of X-Svc-Principal in tests. */
export const TEST_PRINCIPAL_KEY = 'test-principal-key-0123456789abcdef0123456789';
/** HMAC key of X-Svc-Cap-Token in tests. */
export const TEST_CAP_KEY = 'cap-key-0123456789abcdef0123456789abcdef';

/** Other services' URLs: the ones given, else a closed port. */
export function serviceUrls(urls: Partial<Record<ServiceName, string>> = {}): Record<ServiceName, string> {
  return Object.fromEntries(SERVICE_NAMES.map((n) => [n, urls[n] ?? 'http://127.0.0.1:9'])) as Record<ServiceName, string>;
}

/** The common config slice of `service` on `dataDir`, listening on an ephemeral port. */
export function commonConfig(service: ServiceName, dataDir: string, tenantId: string, urls: Partial<Record<ServiceName, string>> = {}): CommonServiceConfig {
  return {
    service, host: '127.0.0.1', port: 0, env: 'test', dataDir, dbDir: join(dataDir, 'db'), objectsDir: join(dataDir, 'objects'),
    logDir: join(dataDir, 'logs'), migrationsDir: join(REPO_ROOT, 'migrations'), logLevel: 'warn', tenantId,
    publicUrl: 'http://127.0.0.1:8080', principalKeys: [TEST_PRINCIPAL_KEY], capTokenKeys: [TEST_CAP_KEY], authEnabled: true, serviceUrls: serviceUrls(urls),
  };
}

/** What the settings readers know beyond the environment, for `dataDir`. */
function readerContext(dataDir: string): ExtrasContext {
  return { dataDir, repoRoot: REPO_ROOT, production: false };
}

/** Options of the service config builders. */
export interface TestConfigOptions {
  /** Data dir (default: a fresh temp dir). */
  dataDir?: string;
  /** Pinned tenant. */
  tenantId: string;
  /** Other services' URLs. */
  urls?: Partial<Record<ServiceName, string>>;
}

/**
 * A guardrail config: common slice plus `guardrailSettings({})` (the defaults), then `overrides`.
 */
export function guardrailConfig(opts: TestConfigOptions, overrides: Partial<GuardrailConfig> = {}): GuardrailConfig {
  const dir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'guardrail-test-'));
  return { ...commonConfig('guardrail', dir, opts.tenantId, opts.urls), ...guardrailSettings({}, readerContext(dir)), ...overrides };
}

/**
 * A memory config: common slice plus `memorySettings({})` (the defaults), with no embedding model
 * (keyword recall only) and the consolidation timer off, then `overrides`.
 */
export function memoryConfig(opts: TestConfigOptions, overrides: Partial<MemoryConfig> = {}): MemoryConfig {
  const dir = opts.dataDir ?? overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'memory-test-'));
  return {
    ...commonConfig('memory', dir, opts.tenantId, opts.urls), ...memorySettings({}, readerContext(dir)),
    modelDirs: [], consolidationIntervalHours: 0, ...overrides,
  };
}

/** Remove a temp data dir. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
