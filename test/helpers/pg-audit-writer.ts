/**
 * A child process that appends audit rows to PostgreSQL through `AsyncChainWriter` (issue 21 items
 * 1 and 5; test/integration/audit-chain-postgres.test.ts and bench/scale-out-postgres.ts run four of
 * these at once). Input: env `SVC_PG_WRITER` = JSON {url, migrationsDir, tenants, count, burst, key,
 * worker}; appends `count` rows, `burst` in flight at a time, round-robin over `tenants`. Output:
 * one JSON line {worker, appended, ms} on stdout; exit status 1 with the error on stderr.
 */
import { AsyncChainWriter } from '../../services/audit/src/domain/async-chain-writer.js';
import { keyRingFromConfig } from '../../services/audit/src/domain/keys.js';
import { openPgAuditStore } from '../../services/audit/src/store/pg/audit-store.js';

/** What the parent hands to a writer. */
export interface PgWriterJob { url: string; migrationsDir: string; tenants: string[]; count: number; burst: number; key: string; worker: number }

async function run(job: PgWriterJob): Promise<void> {
  const ring = keyRingFromConfig({ signingKey: job.key, keyVersion: 'v1', previousSigningKey: null, previousKeyVersion: null });
  const store = await openPgAuditStore({ url: job.url, schema: 'audit', poolMax: 4 }, job.migrationsDir);
  const writer = new AsyncChainWriter(store.log, () => ring);
  const t0 = performance.now();
  try {
    for (let i = 0; i < job.count; i += job.burst) {
      const ps: Promise<unknown>[] = [];
      for (let j = i; j < Math.min(job.count, i + job.burst); j++) {
        ps.push(writer.append({
          tenant_id: job.tenants[j % job.tenants.length]!, user_id: `w${job.worker}-u${j % 7}`, action: 'doc.read', resource_type: 'doc',
          resource_id: `w${job.worker}-d${j}`, detail_type: 'access_v1', detail: { worker: job.worker, i: j, path: `/v1/docs/${j}`, note: 'é ✓' },
        }));
      }
      await Promise.all(ps);
    }
    const ms = performance.now() - t0;
    await writer.close();
    process.stdout.write(`${JSON.stringify({ worker: job.worker, appended: job.count, ms })}\n`);
  } finally {
    await store.db.close();
  }
}

run(JSON.parse(process.env.SVC_PG_WRITER ?? '{}') as PgWriterJob).catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
