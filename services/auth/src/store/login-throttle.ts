/** `login_throttle` table (migrations/auth/0002_login_throttle_revocations.sql): per (account, source) failure counters. */
import type { Db } from '../../../shared/db/open.js';
import type { LoginThrottleStore, ThrottleState } from '../domain/ports.js';

/** SQLite implementation of `LoginThrottleStore`. */
export class SqliteLoginThrottleStore implements LoginThrottleStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      get: db.prepare<[string, string], ThrottleState>('SELECT failures, last_at FROM login_throttle WHERE account = ? AND source = ?'),
      put: db.prepare<[string, string, number, number]>(
        'INSERT INTO login_throttle (account, source, failures, last_at) VALUES (?, ?, ?, ?) '
        + 'ON CONFLICT (account, source) DO UPDATE SET failures = excluded.failures, last_at = excluded.last_at'),
      clear: db.prepare<[string, string]>('DELETE FROM login_throttle WHERE account = ? AND source = ?'),
      prune: db.prepare<[number]>('DELETE FROM login_throttle WHERE last_at < ?'),
    };
  }

  /** A no-op: the SQLite write transaction (BEGIN IMMEDIATE) already counts one attempt at a time. */
  lockSource(): void { /* the write transaction is exclusive */ }
  get(account: string, source: string): ThrottleState | null { return this.q.get.get(account, source) ?? null; }
  put(account: string, source: string, state: ThrottleState): void { this.q.put.run(account, source, state.failures, state.last_at); }
  clear(account: string, source: string): void { this.q.clear.run(account, source); }
  prune(before: number): number { return this.q.prune.run(before).changes; }
}
