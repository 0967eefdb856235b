/**
 * Scaffolding of the services/shared unit tests: a common config slice on an ephemeral port and a
 * silent logger, so a kit-built service can be `inject()`ed or started without files.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { CommonServiceConfig } from '../../../services/shared/config.js';

/** HMAC keys of the tests (32+ characters, newest first). */
export const KEYS = ['k'.repeat(20) + 'principal-key-one', 'k'.repeat(20) + 'principal-key-two'];
/** Capability token keys of the tests. */
export const CAP_KEYS = ['c'.repeat(20) + 'captoken-key-one'];

/** A common config slice for `service` on 127.0.0.1 port 0, data under a fresh temporary folder. */
export function commonConfig(service: CommonServiceConfig['service'] = 'sandbox'): CommonServiceConfig {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-shared-'));
  return {
    service, host: '127.0.0.1', port: 0, env: 'test', dataDir,
    dbDir: join(dataDir, 'db'), objectsDir: join(dataDir, 'objects'), logDir: join(dataDir, 'logs'),
    migrationsDir: join(dataDir, 'migrations'), logLevel: 'silent', tenantId: 'acme',
    publicUrl: 'http://127.0.0.1:1', principalKeys: [...KEYS], capTokenKeys: [...CAP_KEYS], authEnabled: true,
    serviceUrls: {} as CommonServiceConfig['serviceUrls'],
  };
}

/** A logger that writes nothing. */
export function silentLogger(): Logger {
  return pino({ enabled: false });
}
