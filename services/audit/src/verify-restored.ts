/**
 * Chain verification of a restored audit store (issue 19 item 2): the gateway's restore dry run
 * opens the `audit.sqlite` it decrypted into a temporary folder and runs the same five checks as
 * `GET /v1/admin/audit/verify` (domain/chain-verify.ts) under the keys the backup carried.
 */
import type { ChainReport } from './contracts/audit-log.js';
import { verifyChain } from './domain/chain-verify.js';
import { AuditStore } from './store/audit-store.js';

/**
 * Verify the chain of `tenantId` in `<dbDir>/audit.sqlite` (migrated in place: pass a copy).
 * `keys`: key_version -> signing key. @throws Error when the file cannot be opened.
 */
export async function verifyRestoredAuditChain(opts: { dbDir: string; migrationsDir: string; tenantId: string; keys: ReadonlyMap<string, string> }): Promise<ChainReport> {
  const store = AuditStore.open(opts.dbDir, opts.migrationsDir);
  try {
    const first = [...opts.keys.entries()][0] ?? ['none', ''];
    return await verifyChain(store.log, () => ({ active: { version: first[0], key: first[1] }, byVersion: opts.keys }), opts.tenantId);
  } finally {
    store.close();
  }
}
