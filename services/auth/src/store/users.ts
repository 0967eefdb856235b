/** `users` table (migrations/auth/0001_init.sql). */
import type { Db } from '../../../shared/db/open.js';
import type { UserRecord, UserStore } from '../domain/ports.js';

interface Row {
  id: string; email: string; display_name: string; password_hash: string | null;
  roles: string; disabled: number; created_at: string; updated_at: string;
}

function toRecord(r: Row): UserRecord {
  return { ...r, roles: JSON.parse(r.roles) as string[], disabled: r.disabled === 1 };
}

function toRow(u: UserRecord): Row {
  return { ...u, email: u.email.toLowerCase(), roles: JSON.stringify(u.roles), disabled: u.disabled ? 1 : 0 };
}

/** SQLite implementation of `UserStore`. */
export class SqliteUserStore implements UserStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare<Row>(`INSERT INTO users (id, email, display_name, password_hash, roles, disabled, created_at, updated_at)
        VALUES (@id, @email, @display_name, @password_hash, @roles, @disabled, @created_at, @updated_at) ON CONFLICT DO NOTHING`),
      save: db.prepare<Row>(`UPDATE users SET display_name = @display_name, password_hash = @password_hash, roles = @roles,
        disabled = @disabled, updated_at = @updated_at WHERE id = @id`),
      byId: db.prepare<[string], Row>('SELECT * FROM users WHERE id = ?'),
      byEmail: db.prepare<[string], Row>('SELECT * FROM users WHERE email = ?'),
      list: db.prepare<[string, number], Row>('SELECT * FROM users WHERE id > ? ORDER BY id LIMIT ?'),
      count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM users'),
    };
  }

  insert(user: UserRecord): boolean { return this.q.insert.run(toRow(user)).changes === 1; }
  save(user: UserRecord): void { this.q.save.run(toRow(user)); }
  byId(id: string): UserRecord | null { const r = this.q.byId.get(id); return r ? toRecord(r) : null; }
  byEmail(email: string): UserRecord | null { const r = this.q.byEmail.get(email.toLowerCase()); return r ? toRecord(r) : null; }
  list(after: string | null, limit: number): UserRecord[] { return this.q.list.all(after ?? '', limit).map(toRecord); }
  count(): number { return this.q.count.get()!.n; }
}
