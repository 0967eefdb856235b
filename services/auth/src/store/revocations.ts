/** `token_revocations` table (migrations/auth/0002_login_throttle_revocations.sql): revoked subjects and sessions. */
import type { Db } from '../../../shared/db/open.js';
import type { RevocationRecord, RevocationStore } from '../domain/ports.js';

/** SQLite implementation of `RevocationStore`. */
export class SqliteRevocationStore implements RevocationStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      record: db.prepare<[string, string | null, number]>('INSERT INTO token_revocations (subject, session_id, revoked_at) VALUES (?, ?, ?)'),
      after: db.prepare<[number, number, number], RevocationRecord>(
        'SELECT seq, subject, session_id, revoked_at FROM token_revocations WHERE seq > ? AND revoked_at > ? ORDER BY seq LIMIT ?'),
      latest: db.prepare<[], { seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'token_revocations'"),
      prune: db.prepare<[number]>('DELETE FROM token_revocations WHERE revoked_at < ?'),
    };
  }

  record(subject: string, sessionId: string | null, revokedAt: number): number {
    return Number(this.q.record.run(subject, sessionId, revokedAt).lastInsertRowid);
  }
  after(after: number, since: number, limit: number): RevocationRecord[] { return this.q.after.all(after, since, limit); }
  latest(): number { return this.q.latest.get()?.seq ?? 0; }
  prune(before: number): number { return this.q.prune.run(before).changes; }
}
