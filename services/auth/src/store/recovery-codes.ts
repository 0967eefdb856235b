/** `recovery_codes` table (migrations/auth/0003_devices.sql; issue 14). */
import type { Db } from '../../../shared/db/open.js';
import type { RecoveryCodeStore } from '../domain/device-ports.js';

/** SQLite implementation of `RecoveryCodeStore`. */
export class SqliteRecoveryCodeStore implements RecoveryCodeStore {
  private readonly q;
  private readonly replaceTx;

  constructor(db: Db) {
    this.q = {
      clear: db.prepare<[string]>('DELETE FROM recovery_codes WHERE user_id = ?'),
      insert: db.prepare<[string, string, number]>('INSERT INTO recovery_codes (user_id, code_hash, created_at) VALUES (?, ?, ?)'),
      use: db.prepare<[number, string, string]>('UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL'),
      status: db.prepare<[string], { remaining: number; created_at: number | null }>(
        'SELECT coalesce(sum(used_at IS NULL), 0) AS remaining, max(created_at) AS created_at FROM recovery_codes WHERE user_id = ?'),
    };
    this.replaceTx = db.transaction((userId: string, hashes: string[], at: number) => {
      this.q.clear.run(userId);
      for (const h of hashes) this.q.insert.run(userId, h, at);
    });
  }

  replace(userId: string, hashes: string[], at: number): void { this.replaceTx(userId, hashes, at); }
  use(userId: string, hash: string, at: number): boolean { return this.q.use.run(at, userId, hash).changes === 1; }
  status(userId: string): { remaining: number; created_at: number | null } { return this.q.status.get(userId)!; }
}
