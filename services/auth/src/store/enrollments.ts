/** `enrollments` table (migrations/auth/0003_devices.sql; issue 14). */
import type { Db } from '../../../shared/db/open.js';
import type { EnrollmentRecord, EnrollmentStore } from '../domain/device-ports.js';

/** SQLite implementation of `EnrollmentStore`. */
export class SqliteEnrollmentStore implements EnrollmentStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare<EnrollmentRecord>(`INSERT INTO enrollments (id, user_id, nonce, challenge_id, created_at, expires_at, used_at, device_id)
        VALUES (@id, @user_id, @nonce, @challenge_id, @created_at, @expires_at, @used_at, @device_id)`),
      byId: db.prepare<[string], EnrollmentRecord>('SELECT * FROM enrollments WHERE id = ?'),
      pending: db.prepare<[string, number], { n: number }>(
        'SELECT count(*) AS n FROM enrollments WHERE user_id = ? AND used_at IS NULL AND challenge_id IS NULL AND expires_at > ?'),
      markUsed: db.prepare<[number, string, string]>('UPDATE enrollments SET used_at = ?, device_id = ? WHERE id = ? AND used_at IS NULL'),
      prune: db.prepare<[number]>('DELETE FROM enrollments WHERE expires_at < ?'),
    };
  }

  insert(e: EnrollmentRecord): void { this.q.insert.run(e); }
  byId(id: string): EnrollmentRecord | null { return this.q.byId.get(id) ?? null; }
  pendingCount(userId: string, now: number): number { return this.q.pending.get(userId, now)!.n; }
  markUsed(id: string, at: number, deviceId: string): boolean { return this.q.markUsed.run(at, deviceId, id).changes === 1; }
  prune(before: number): number { return this.q.prune.run(before).changes; }
}
