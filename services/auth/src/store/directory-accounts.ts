/** `directory_accounts` table (migrations/auth/0004_directory_accounts.sql; issue 15 item 3). */
import type { Db } from '../../../shared/db/open.js';
import type { DirectoryAccountRecord, DirectoryAccountStore } from '../domain/directory-login.js';

interface Row { user_id: string; dn: string; username: string; groups: string; synced_at: string }

/** SQLite implementation of `DirectoryAccountStore`. */
export class SqliteDirectoryAccountStore implements DirectoryAccountStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      put: db.prepare<Row>(`INSERT INTO directory_accounts (user_id, dn, username, groups, synced_at) VALUES (@user_id, @dn, @username, @groups, @synced_at)
        ON CONFLICT (user_id) DO UPDATE SET dn = excluded.dn, username = excluded.username, groups = excluded.groups, synced_at = excluded.synced_at`),
      get: db.prepare<[string], Row>('SELECT * FROM directory_accounts WHERE user_id = ?'),
    };
  }

  put(rec: DirectoryAccountRecord): void { this.q.put.run({ ...rec, groups: JSON.stringify(rec.groups) }); }
  get(userId: string): DirectoryAccountRecord | null {
    const r = this.q.get.get(userId);
    return r ? { ...r, groups: JSON.parse(r.groups) as string[] } : null;
  }
}
