/**
 * A guardrail service for the guard benches (bench/guardrail.ts latency, bench/guard-quality.ts
 * rates from outside): started in this process on a free port with a temporary data directory and
 * the repository's migrations and assets, called as the agent runtime's service principal.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { guardrailSettings } from '../../main/config/services/guardrail.js';
import { start } from '../../services/guardrail/src/index.js';
import { servicePrincipal, signStamp } from '../../services/shared/identity/principal.js';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';

/** The repository: `dist/bench/support` (or `.build/<x>/bench/support`) is three levels below it. */
export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

/** A running bench guardrail: a pool to it, the headers of a service call, and close. */
export interface BenchGuardrail { pool: Pool; headers: Record<string, string>; close(): Promise<void> }

/** Start the guardrail with default settings; `connections` sizes the pool. */
export async function startBenchGuardrail(prefix: string, connections: number): Promise<BenchGuardrail> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const urls = Object.fromEntries(SERVICE_NAMES.map((s) => [s, 'http://127.0.0.1:9'])) as Record<ServiceName, string>;
  const keys = ['bench-principal-key-0123456789abcdef0123456789'];
  const svc = await start({
    service: 'guardrail', host: '127.0.0.1', port: 0, env: 'test', dataDir: dir, dbDir: join(dir, 'db'), objectsDir: join(dir, 'objects'), logDir: join(dir, 'logs'),
    migrationsDir: join(REPO_ROOT, 'migrations'), logLevel: 'warn', tenantId: 'bench', publicUrl: 'http://127.0.0.1:8080', principalKeys: keys,
    capTokenKeys: ['bench-cap-key-0123456789abcdef0123456789'], authEnabled: true, serviceUrls: urls,
    ...guardrailSettings({}, { dataDir: dir, repoRoot: REPO_ROOT, production: false }),
  });
  const pool = new Pool(`http://127.0.0.1:${svc.port}`, { connections });
  const headers = { 'content-type': 'application/json', 'x-svc-principal': signStamp({ ...servicePrincipal('agent-runtime', 'bench'), roles: ['service-account'] }, keys) };
  return {
    pool, headers,
    close: async () => { await pool.close(); await svc.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}
