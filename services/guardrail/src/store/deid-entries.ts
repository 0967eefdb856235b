/**
 * `deid_entries` (migrations/guardrail/): per-turn de-identification mappings. Values are looked up
 * by an HMAC of their normalised key and stored AES-256-GCM encrypted (iv 12 bytes, tag 16 bytes,
 * then the ciphertext) under the de-identification key.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Db } from '../../../shared/db/open.js';
import type { EntityType } from '../contracts.js';
import type { NewMapping, TurnMapping } from '../domain/deidentify.js';
import type { DeidMappingStore } from '../domain/ports.js';

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
    const rows = this.q.turnEntries.all(tenantId, turnId);
    const byHash = new Map<string, string>();
    const maxIndex = new Map<EntityType, number>();
    for (const r of rows) {
      byHash.set(r.value_hash, r.placeholder);
      const n = Number(/_(\d+)>$/.exec(r.placeholder)?.[1] ?? 0);
      if (n > (maxIndex.get(r.entity_type) ?? 0)) maxIndex.set(r.entity_type, n);
    }
    return { byKey: { get: (k) => byHash.get(this.hash(k)), set: (k, v) => byHash.set(this.hash(k), v) }, maxIndex };
  }

  /** Persist new assignments of a turn (inside `assignPlaceholders`' transaction). */
  private addMappings(tenantId: string, turnId: string, ownerId: string, added: NewMapping[]): void {
    const now = Date.now();
    for (const a of added) this.q.insertEntry.run(tenantId, turnId, a.placeholder, a.type, this.hash(a.key), this.encrypt(a.value), ownerId, now);
  }

  private hash(key: string): string {
    return createHmac('sha256', this.key).update(key, 'utf8').digest('hex');
  }

  private encrypt(value: string): Buffer {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([c.update(value, 'utf8'), c.final()]);
    return Buffer.concat([iv, c.getAuthTag(), body]);
  }

  private decrypt(blob: Buffer): string {
    const d = createDecipheriv('aes-256-gcm', this.key, blob.subarray(0, 12));
    d.setAuthTag(blob.subarray(12, 28));
    return Buffer.concat([d.update(blob.subarray(28)), d.final()]).toString('utf8');
  }
}
