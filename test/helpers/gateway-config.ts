/**
 * A gateway configuration for tests: every upstream points at one recording server, and the
 * trusted issuer is a test issuer. Values mirror main/config defaults unless overridden.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { GatewayConfig } from '../../services/shared/config.js';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';

/** Issuer string used by gateway tests. */
export const TEST_ISSUER = 'http://127.0.0.1:8080/auth';

/** Build a GatewayConfig whose upstreams are all `upstreamUrl`. */
export function gatewayConfig(upstreamUrl: string, jwksUrl: string, over: Partial<GatewayConfig> = {}): GatewayConfig {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-gw-'));
  const serviceUrls = {} as Record<ServiceName, string>;
  for (const n of SERVICE_NAMES) serviceUrls[n] = upstreamUrl;
  return {
    service: 'gateway', host: '127.0.0.1', port: 0, env: 'test', dataDir,
    dbDir: join(dataDir, 'db'), objectsDir: join(dataDir, 'objects'), logDir: join(dataDir, 'logs'),
    migrationsDir: join(process.cwd(), 'migrations'), logLevel: 'warn', tenantId: 'acme',
    publicUrl: 'http://127.0.0.1:8080',
    principalKeys: [randomBytes(32).toString('hex')], capTokenKeys: [randomBytes(32).toString('hex')],
    authEnabled: true, serviceUrls,
    maxRequestBodyBytes: 4096, rateLimitIpPerMinute: 100_000, rateLimitTenantPerMinute: 100_000, redisUrl: null,
    trustedIssuers: [{ issuer: TEST_ISSUER, jwksUrl, algorithms: ['ES256'] }],
    audience: 'svc-frontend', adminEmailAllowlist: [], groupRoleMap: {}, trustProxy: false, allowedHosts: [], tokenCacheMax: 1000, rendererDir: null,
    ...over,
  };
}
