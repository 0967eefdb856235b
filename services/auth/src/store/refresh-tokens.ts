/** `refresh_tokens` table (migrations/auth/0001_init.sql). */
import type { Db } from '../../../shared/db/open.js';
import type { RefreshTokenRecord, RefreshTokenStore } from '../domain/ports.js';

/** SQLite implementation of `RefreshTokenStore`. */
export class SqliteRefreshTokenStore implements RefreshTokenStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare<RefreshTokenRecord>(`INSERT INTO refresh_tokens (jti, token_hash, family_id, user_id, issued_at, expires_at, used_at, revoked_at)
        VALUES (@jti, @token_hash, @family_id, @user_id, @issued_at, @expires_at, @used_at, @revoked_at)`),
      byHash: db.prepare<[string], RefreshTokenRecord>('SELECT * FROM refresh_tokens WHERE token_hash = ?'),
      markUsed: db.prepare<[number, string]>('UPDATE refresh_tokens SET used_at = ? WHERE jti = ? AND used_at IS NULL AND revoked_at IS NULL'),
      revokeFamily: db.prepare<[number, string]>('UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL'),
      revokeUser: db.prepare<[number, string]>('UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL'),
      prune: db.prepare<[number]>('DELETE FROM refresh_tokens WHERE expires_at < ?'),
    };
  }

  insert(token: RefreshTokenRecord): void { this.q.insert.run(token); }
  byHash(tokenHash: string): RefreshTokenRecord | null { return this.q.byHash.get(tokenHash) ?? null; }
  markUsed(jti: string, at: number): boolean { return this.q.markUsed.run(at, jti).changes === 1; }
  revokeFamily(familyId: string, at: number): number { return this.q.revokeFamily.run(at, familyId).changes; }
  revokeUser(userId: string, at: number): number { return this.q.revokeUser.run(at, userId).changes; }
  pruneExpired(before: number): number { return this.q.prune.run(before).changes; }
}
