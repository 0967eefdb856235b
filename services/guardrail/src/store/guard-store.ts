/**
 * The guardrail's SQLite store (the only code of the service that touches SQLite): policy overrides
 * per tenant and agent, and per-turn de-identification mappings with values encrypted at rest
 * (AES-256-GCM under a key kept in `<dbDir>/guardrail-deid.key`, created 0600 on first start).
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openDb, type Db } from '../../../shared/db/open.js';
import type { EntityType } from '../domain/entities.js';
import type { NewMapping, TurnMapping } from '../domain/deidentify.js';
import type { PolicyOverride } from '../domain/policy.js';

/** A stored policy override row. */
export interface PolicyRow { tenant_id: string; agent_id: string; policy: PolicyOverride; updated_at: string; updated_by: string }

function loadKey(dbDir: string): Buffer {
  if (dbDir === ':memory:') return randomBytes(32);
  mkdirSync(dbDir, { recursive: true });
  const file = join(dbDir, 'guardrail-deid.key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key`);
  return key;
}

/** SQLite-backed store of the guardrail service. */
export class GuardStore {
  private readonly key: Buffer;
  private readonly s: {
    getPolicy: Database.Statement<[string, string]>;
    upsertPolicy: Database.Statement<[string, string, string, string, string]>;
    deletePolicy: Database.Statement<[string, string]>;
    turnEntries: Database.Statement<[string, string]>;
    ownerEntries: Database.Statement<[string, string, string]>;
    insertEntry: Database.Statement<[string, string, string, string, string, Buffer, string, number]>;
    purge: Database.Statement<[number]>;
  };

  private constructor(readonly db: Db, dbDir: string) {
    this.key = loadKey(dbDir);
    this.s = {
      getPolicy: db.prepare('SELECT * FROM guard_policies WHERE tenant_id = ? AND agent_id = ?'),
      upsertPolicy: db.prepare(`INSERT INTO guard_policies (tenant_id, agent_id, policy_json, updated_at, updated_by) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (tenant_id, agent_id) DO UPDATE SET policy_json = excluded.policy_json, updated_at = excluded.updated_at, updated_by = excluded.updated_by`),
      deletePolicy: db.prepare('DELETE FROM guard_policies WHERE tenant_id = ? AND agent_id = ?'),
      turnEntries: db.prepare('SELECT placeholder, entity_type, value_hash FROM deid_entries WHERE tenant_id = ? AND turn_id = ?'),
      ownerEntries: db.prepare('SELECT placeholder, value_enc FROM deid_entries WHERE tenant_id = ? AND turn_id = ? AND owner_id = ?'),
      insertEntry: db.prepare('INSERT OR IGNORE INTO deid_entries (tenant_id, turn_id, placeholder, entity_type, value_hash, value_enc, owner_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      purge: db.prepare('DELETE FROM deid_entries WHERE created_at < ?'),
    };
  }

  /** Open (creating and migrating) `<dbDir>/guardrail.sqlite`. */
  static open(dbDir: string, migrationsDir: string): GuardStore {
    return new GuardStore(openDb({ dbDir, store: 'guardrail', migrationsDir, vec: false }), dbDir);
  }

  /** The override stored for (tenant, agent); agent '' is the tenant level. */
  getPolicy(tenantId: string, agentId: string): PolicyRow | null {
    const r = this.s.getPolicy.get(tenantId, agentId) as { tenant_id: string; agent_id: string; policy_json: string; updated_at: string; updated_by: string } | undefined;
    return r ? { tenant_id: r.tenant_id, agent_id: r.agent_id, policy: JSON.parse(r.policy_json) as PolicyOverride, updated_at: r.updated_at, updated_by: r.updated_by } : null;
  }

  putPolicy(tenantId: string, agentId: string, policy: PolicyOverride, by: string): void {
    this.s.upsertPolicy.run(tenantId, agentId, JSON.stringify(policy), new Date().toISOString(), by);
  }

  deletePolicy(tenantId: string, agentId: string): boolean {
    return this.s.deletePolicy.run(tenantId, agentId).changes > 0;
  }

  private hash(key: string): string {
    return createHmac('sha256', this.key).update(key, 'utf8').digest('hex');
  }

  /** The turn's mapping (value hash -> placeholder, highest number per type). */
  turnMapping(tenantId: string, turnId: string): TurnMapping {
    const rows = this.s.turnEntries.all(tenantId, turnId) as Array<{ placeholder: string; entity_type: EntityType; value_hash: string }>;
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
    for (const a of added) this.s.insertEntry.run(tenantId, turnId, a.placeholder, a.type, this.hash(a.key), this.encrypt(a.value), ownerId, now);
  }

  /**
   * Read the turn's mapping, let `assign` extend it, and persist the additions — in one immediate
   * transaction, so concurrent calls of one turn never hand one number to two values.
   */
  assignPlaceholders<T extends { added: NewMapping[] }>(tenantId: string, turnId: string, ownerId: string, assign: (m: TurnMapping) => T): T {
    return this.db.transaction(() => {
      const out = assign(this.turnMapping(tenantId, turnId));
      this.addMappings(tenantId, turnId, ownerId, out.added);
      return out;
    }).immediate();
  }

  /** Placeholder -> value for the owner's entries of a turn. */
  valuesFor(tenantId: string, turnId: string, ownerId: string): Map<string, string> {
    const rows = this.s.ownerEntries.all(tenantId, turnId, ownerId) as Array<{ placeholder: string; value_enc: Buffer }>;
    return new Map(rows.map((r) => [r.placeholder, this.decrypt(r.value_enc)]));
  }

  /** Delete mappings created before `cutoffMs` (epoch ms). */
  purgeBefore(cutoffMs: number): number {
    return this.s.purge.run(cutoffMs).changes;
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

  close(): void { if (this.db.open) this.db.close(); }
}
