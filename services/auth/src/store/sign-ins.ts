/** `sign_ins` table (migrations/auth/0007_sign_ins.sql; issue 15 item 5): who signed in how. */
import type { Db } from '../../../shared/db/open.js';
import type { SignInMethod, SignInPosition, SignInRecord, SignInSecondFactor, SignInStore } from '../domain/sign-in-log.js';

type Row = Omit<SignInRecord, 'method' | 'second_factor'> & { method: string; second_factor: string | null };

const COLUMNS = 'id, at, user_id, email, method, second_factor, issuer, client_id, client_ip';

/** SQLite implementation of `SignInStore`. */
export class SqliteSignInStore implements SignInStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare<[number, string, string | null, string, string | null, string | null, string | null, string | null]>(
        'INSERT INTO sign_ins (at, user_id, email, method, second_factor, issuer, client_id, client_ip) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      newest: db.prepare<[number], Row>(`SELECT ${COLUMNS} FROM sign_ins ORDER BY at DESC, id DESC LIMIT ?`),
      before: db.prepare<[number, number, number, number], Row>(
        `SELECT ${COLUMNS} FROM sign_ins WHERE at < ? OR (at = ? AND id < ?) ORDER BY at DESC, id DESC LIMIT ?`),
      counts: db.prepare<[number], { method: string; count: number }>(
        'SELECT method, count(*) AS count FROM sign_ins WHERE at >= ? GROUP BY method ORDER BY count DESC, method'),
      prune: db.prepare<[number]>('DELETE FROM sign_ins WHERE at < ?'),
    };
  }

  insert(r: Omit<SignInRecord, 'id'>): void {
    this.q.insert.run(r.at, r.user_id, r.email, r.method, r.second_factor, r.issuer, r.client_id, r.client_ip);
  }

  page(before: SignInPosition | null, limit: number): SignInRecord[] {
    const rows = before ? this.q.before.all(before.at, before.at, before.id, limit) : this.q.newest.all(limit);
    return rows.map((r) => ({ ...r, method: r.method as SignInMethod, second_factor: r.second_factor as SignInSecondFactor | null }));
  }

  countsByMethod(since: number): Array<{ method: string; count: number }> { return this.q.counts.all(since); }

  prune(before: number): number { return Number(this.q.prune.run(before).changes); }
}
