/**
 * `PgDb`: one service's PostgreSQL schema as its stores use it (issue 21 item 1): `query` runs on
 * the pool, or on the transaction's connection when called inside `tx` (the transaction follows
 * the async call chain through AsyncLocalStorage, so table-group stores need no client parameter
 * and their calls inside one `tx` commit together, as `Transactor` does on SQLite). A nested `tx`
 * is a savepoint.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';

/** A query result row. */
export type PgRow = Record<string, unknown>;

interface TxFrame { client: pg.PoolClient; depth: number }

/** Options of one transaction. */
export interface PgTxOptions {
  /** Isolation level (default READ COMMITTED, PostgreSQL's). */
  isolation?: 'read committed' | 'repeatable read' | 'serializable';
}

/** The async counterpart of SQLite's `Transactor`: `fn` runs in one transaction; rolled back when it throws. */
export type PgTransactor = <T>(fn: () => Promise<T>, opts?: PgTxOptions) => Promise<T>;

/** A service schema: queries, transactions, readiness and close. */
export class PgDb {
  private readonly als = new AsyncLocalStorage<TxFrame>();
  private closed = false;
  private savepoints = 0;

  /** @param pool a pool from `openPgPool` (its connections' search_path is the schema). */
  constructor(readonly pool: pg.Pool, readonly schema: string) {}

  /** Run one statement (`$1`-style parameters) on the current transaction or the pool. @returns its rows. */
  async query<R extends object = PgRow>(text: string, params: readonly unknown[] = []): Promise<R[]> {
    const frame = this.als.getStore();
    const res = frame ? await frame.client.query(text, params as unknown[]) : await this.pool.query(text, params as unknown[]);
    return res.rows as R[];
  }

  /** Run one statement. @returns the number of rows it changed. */
  async exec(text: string, params: readonly unknown[] = []): Promise<number> {
    const frame = this.als.getStore();
    const res = frame ? await frame.client.query(text, params as unknown[]) : await this.pool.query(text, params as unknown[]);
    return res.rowCount ?? 0;
  }

  /** Whether the caller runs inside `tx`. */
  get inTransaction(): boolean { return this.als.getStore() !== undefined; }

  /**
   * Run `fn` in one transaction on one connection (a savepoint when already inside one).
   * Rolls back and rethrows when `fn` throws; every store call `fn` awaits joins it.
   */
  readonly tx: PgTransactor = async <T>(fn: () => Promise<T>, opts?: PgTxOptions): Promise<T> => {
    const outer = this.als.getStore();
    if (outer) {
      const name = `svc_sp_${++this.savepoints}`;
      await outer.client.query(`SAVEPOINT ${name}`);
      try {
        const v = await this.als.run({ client: outer.client, depth: outer.depth + 1 }, fn);
        await outer.client.query(`RELEASE SAVEPOINT ${name}`);
        return v;
      } catch (err) {
        await outer.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
        throw err;
      }
    }
    if (this.closed) throw new Error(`database of ${this.schema} is closed`);
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query(opts?.isolation ? `BEGIN ISOLATION LEVEL ${opts.isolation.toUpperCase()}` : 'BEGIN');
      const v = await this.als.run({ client, depth: 1 }, fn);
      await client.query('COMMIT');
      return v;
    } catch (err) {
      try { await client.query('ROLLBACK'); } catch { broken = true; }
      throw err;
    } finally {
      client.release(broken);
    }
  };

  /** True until `close()`. */
  get isOpen(): boolean { return !this.closed; }

  /** Readiness: the server answers `SELECT 1` within `timeoutMs` (default 2000). */
  async ready(timeoutMs = 2000): Promise<boolean> {
    if (this.closed) return false;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.pool.query('SELECT 1').then(() => true, () => false),
        new Promise<boolean>((res) => { timer = setTimeout(() => res(false), timeoutMs); }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** End the pool (idempotent; waits for checked-out connections to be released). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
