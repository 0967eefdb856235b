/**
 * `deid_entries` (migrations/guardrail/): per-turn de-identification mappings. Values are looked up
 * by an HMAC of their normalised key and stored AES-256-GCM encrypted (iv 12 bytes, tag 16 bytes,
 * then the ciphertext) under the de-identification key.
 */
import type { Db } from '../../../shared/db/open.js';
import type { EntityType } from '../contracts.js';
import type { NewMapping, TurnMapping } from '../domain/deidentify.js';
import type { DeidMappingStore } from '../domain/ports.js';
import { deidDecrypt, deidEncrypt, deidHash, turnMappingOf } from './deid-crypto.js';

/** SQLite implementation of `DeidMappingStore`. */
export class SqliteDeidEntries implements DeidMappingStore {
  private readonly q;

  /** @param key the 32-byte de-identification key. */
  constructor(private readonly db: Db, private readonly key: Buffer) {
    this.q = {
      turnEntries: db.prepare<[string, string], { placeholder: string; entity_type: EntityType; value_hash: string }>('SELECT placeholder, entity_type, value_hash FROM deid_entries WHERE tenant_id = ? AND turn_id = ?'),
      ownerEntries: db.prepare<[string, string, string], { placeholder: string; value_enc: Buffer }>('SELECT placeholder, value_enc FROM deid_entries WHERE tenant_id = ? AND turn_id = ? AND owner_id = ?'),
      insertEntry: db.prepare<[string, string, string, string, string, Buffer, string, number]>('INSERT OR IGNORE INTO deid_entries (tenant_id, turn_id, placeholder, entity_type, value_hash, value_enc, owner_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      purge: db.prepare<[number]>('DELETE FROM deid_entries WHERE created_at < ?'),
    };
  }

  assignPlaceholders<T extends { added: NewMapping[] }>(tenantId: string, turnId: string, ownerId: string, assign: (m: TurnMapping) => T): T {
    return this.db.transaction(() => {
      const out = assign(this.turnMapping(tenantId, turnId));
      this.addMappings(tenantId, turnId, ownerId, out.added);
      return out;
    }).immediate();
  }

  valuesFor(tenantId: string, turnId: string, ownerId: string): Map<string, string> {
    const rows = this.q.ownerEntries.all(tenantId, turnId, ownerId);
    return new Map(rows.map((r) => [r.placeholder, this.decrypt(r.value_enc)]));
  }

  purgeBefore(cutoffMs: number): number {
    return this.q.purge.run(cutoffMs).changes;
  }

  /** The turn's mapping (value hash -> placeholder, highest number per type). */
  private turnMapping(tenantId: string, turnId: string): TurnMapping {
    return turnMappingOf(this.key, this.q.turnEntries.all(tenantId, turnId));
  }

  /** Persist new assignments of a turn (inside `assignPlaceholders`' transaction). */
  private addMappings(tenantId: string, turnId: string, ownerId: string, added: NewMapping[]): void {
    const now = Date.now();
    for (const a of added) this.q.insertEntry.run(tenantId, turnId, a.placeholder, a.type, this.hash(a.key), this.encrypt(a.value), ownerId, now);
  }

  private hash(key: string): string { return deidHash(this.key, key); }

  private encrypt(value: string): Buffer { return deidEncrypt(this.key, value); }

  private decrypt(blob: Buffer): string { return deidDecrypt(this.key, blob); }
}
