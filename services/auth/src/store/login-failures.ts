/** `login_failures` table (migrations/auth/0001_init.sql). */
import type { Db } from '../../../shared/db/open.js';
import type { FailureStats, LoginFailureStore } from '../domain/ports.js';

/** SQLite implementation of `LoginFailureStore`. */
export class SqliteLoginFailureStore implements LoginFailureStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      record: db.prepare<[string, string, number]>('INSERT INTO login_failures (account, ip, at) VALUES (?, ?, ?)'),
      remove: db.prepare<[number]>('DELETE FROM login_failures WHERE id = ?'),
      countAccount: db.prepare<[string, number], { n: number }>('SELECT count(*) AS n FROM login_failures WHERE account = ? AND at > ?'),
      countIp: db.prepare<[string, number], { n: number }>('SELECT count(*) AS n FROM login_failures WHERE ip = ? AND at > ?'),
      nthAccount: db.prepare<[string, number, number], { at: number }>('SELECT at FROM login_failures WHERE account = ? AND at > ? ORDER BY at LIMIT 1 OFFSET ?'),
      nthIp: db.prepare<[string, number, number], { at: number }>('SELECT at FROM login_failures WHERE ip = ? AND at > ? ORDER BY at LIMIT 1 OFFSET ?'),
      clearAccount: db.prepare<[string]>('DELETE FROM login_failures WHERE account = ?'),
      prune: db.prepare<[number]>('DELETE FROM login_failures WHERE at < ?'),
    };
  }

  record(account: string, ip: string, at: number): number { return Number(this.q.record.run(account, ip, at).lastInsertRowid); }
  remove(id: number): void { this.q.remove.run(id); }
  accountStats(account: string, since: number, max: number): FailureStats {
    return this.stats(this.q.countAccount.get(account, since)!.n, max, (off) => this.q.nthAccount.get(account, since, off)?.at);
  }
  ipStats(ip: string, since: number, max: number): FailureStats {
    return this.stats(this.q.countIp.get(ip, since)!.n, max, (off) => this.q.nthIp.get(ip, since, off)?.at);
  }
  clearAccount(account: string): void { this.q.clearAccount.run(account); }
  prune(before: number): number { return this.q.prune.run(before).changes; }

  // With count >= max, the count drops below max once the (count - max + 1) oldest have expired.
  private stats(count: number, max: number, nth: (offset: number) => number | undefined): FailureStats {
    return { count, blockingAt: count >= max ? nth(count - max) ?? null : null };
  }
}
