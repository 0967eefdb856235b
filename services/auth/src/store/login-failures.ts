/** `login_failures` table (migrations/auth/0001_init.sql): one row per counted attempt, for the per-source cap. */
import type { Db } from '../../../shared/db/open.js';
import type { FailureStats, LoginFailureStore } from '../domain/ports.js';

/** SQLite implementation of `LoginFailureStore`. */
export class SqliteLoginFailureStore implements LoginFailureStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      record: db.prepare<[string, string, number]>('INSERT INTO login_failures (account, ip, at) VALUES (?, ?, ?)'),
      remove: db.prepare<[number]>('DELETE FROM login_failures WHERE id = ?'),
      countIp: db.prepare<[string, number], { n: number }>('SELECT count(*) AS n FROM login_failures WHERE ip = ? AND at > ?'),
      nthIp: db.prepare<[string, number, number], { at: number }>('SELECT at FROM login_failures WHERE ip = ? AND at > ? ORDER BY at LIMIT 1 OFFSET ?'),
      clearPair: db.prepare<[string, string]>('DELETE FROM login_failures WHERE account = ? AND ip = ?'),
      prune: db.prepare<[number]>('DELETE FROM login_failures WHERE at < ?'),
    };
  }

  record(account: string, ip: string, at: number): number { return Number(this.q.record.run(account, ip, at).lastInsertRowid); }
  remove(id: number): void { this.q.remove.run(id); }
  ipStats(ip: string, since: number, max: number): FailureStats {
    const count = this.q.countIp.get(ip, since)!.n;
    // With count >= max, the count drops below max once the (count - max + 1) oldest have expired.
    return { count, blockingAt: count >= max ? this.q.nthIp.get(ip, since, count - max)?.at ?? null : null };
  }
  clearPair(account: string, ip: string): void { this.q.clearPair.run(account, ip); }
  prune(before: number): number { return this.q.prune.run(before).changes; }
}
