/**
 * `deid_entries` on PostgreSQL (issue 21 item 1): the twin of store/deid-entries.ts (same HMAC and
 * AES-256-GCM blobs, as BYTEA). `assignPlaceholders` reads, extends and writes a turn's mapping in
 * one transaction under an advisory lock on (tenant, turn), so concurrent calls of one turn from
 * any process never hand one number to two values (SQLite gets this from BEGIN IMMEDIATE).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { NewMapping, TurnMapping } from '../../domain/deidentify.js';
import type { DeidMappingStore } from '../../domain/ports.js';
import { deidDecrypt, deidEncrypt, deidHash, turnMappingOf, type DeidEntryRow } from '../deid-crypto.js';

/** Advisory-lock class of the de-identification turns ('deid' in ASCII). */
const LOCK_CLASS = 0x64656964;

/** PostgreSQL implementation of `DeidMappingStore`. */
export class PgDeidEntries implements DeidMappingStore {
  /** @param key the 32-byte de-identification key. */
  constructor(private readonly db: PgDb, private readonly key: Buffer) {}

  assignPlaceholders<T extends { added: NewMapping[] }>(tenantId: string, turnId: string, ownerId: string, assign: (m: TurnMapping) => T): Promise<T> {
    return this.db.tx(async () => {
      await this.db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, `${tenantId}\u001f${turnId}`]);
      const rows = await this.db.query<DeidEntryRow>('SELECT placeholder, entity_type, value_hash FROM deid_entries WHERE tenant_id = $1 AND turn_id = $2', [tenantId, turnId]);
      const out = assign(turnMappingOf(this.key, rows));
      if (out.added.length) {
        const now = Date.now();
        await this.db.exec(`INSERT INTO deid_entries (tenant_id, turn_id, placeholder, entity_type, value_hash, value_enc, owner_id, created_at)
          SELECT $1, $2, p, t, h, e, $3, $4 FROM unnest($5::text[], $6::text[], $7::text[], $8::bytea[]) AS x(p, t, h, e)
          ON CONFLICT DO NOTHING`, [
          tenantId, turnId, ownerId, now,
          out.added.map((a) => a.placeholder), out.added.map((a) => a.type), out.added.map((a) => deidHash(this.key, a.key)), out.added.map((a) => deidEncrypt(this.key, a.value)),
        ]);
      }
      return out;
    });
  }

  async valuesFor(tenantId: string, turnId: string, ownerId: string): Promise<Map<string, string>> {
    const rows = await this.db.query<{ placeholder: string; value_enc: Buffer }>('SELECT placeholder, value_enc FROM deid_entries WHERE tenant_id = $1 AND turn_id = $2 AND owner_id = $3', [tenantId, turnId, ownerId]);
    return new Map(rows.map((r) => [r.placeholder, deidDecrypt(this.key, r.value_enc)]));
  }

  purgeBefore(cutoffMs: number): Promise<number> {
    return this.db.exec('DELETE FROM deid_entries WHERE created_at < $1', [cutoffMs]);
  }
}
