/** `installer_handoffs` table (migrations/auth/0001_init.sql). */
import type { Db } from '../../../shared/db/open.js';
import type { HandoffRecord, HandoffStore } from '../domain/ports.js';

/** SQLite implementation of `HandoffStore`. */
export class SqliteHandoffStore implements HandoffStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare<HandoffRecord>('INSERT INTO installer_handoffs (id_hash, user_id, created_at) VALUES (@id_hash, @user_id, @created_at)'),
      pending: db.prepare<[], HandoffRecord>('SELECT id_hash, user_id, created_at FROM installer_handoffs WHERE spent_at IS NULL ORDER BY created_at DESC LIMIT 1'),
      spend: db.prepare<[number, string], { user_id: string }>('UPDATE installer_handoffs SET spent_at = ? WHERE id_hash = ? AND spent_at IS NULL RETURNING user_id'),
      spendAll: db.prepare<[number]>('UPDATE installer_handoffs SET spent_at = ? WHERE spent_at IS NULL'),
    };
  }

  insert(record: HandoffRecord): void { this.q.insert.run(record); }
  pending(): HandoffRecord | null { return this.q.pending.get() ?? null; }
  spend(idHash: string, at: number): string | null { return this.q.spend.get(at, idHash)?.user_id ?? null; }
  spendAll(at: number): void { this.q.spendAll.run(at); }
}
