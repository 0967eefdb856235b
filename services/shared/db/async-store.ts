/**
 * The engine-neutral face of a store facade (issue 21 item 1: "the store interfaces become
 * asynchronous where PostgreSQL needs it, without slowing the SQLite path"). A domain written
 * against `Awaitable` ports and `AsyncTransactor` runs unchanged on SQLite (`openStore`, every call
 * answers synchronously) and on PostgreSQL (`openPgStore`, every call is a round trip).
 *
 * SQLite's async transaction (`sqliteAsyncTransactor`): `BEGIN IMMEDIATE`, await `fn`, `COMMIT`
 * (`ROLLBACK` when it throws); a nested call inside `fn` is a savepoint; transactions of one database
 * queue on a promise chain, so two never interleave. Rule for domains (both engines): await only
 * store calls inside a transaction, never another service or the network — on SQLite every await
 * inside then resolves within the same macrotask, so no other request's statement runs inside it,
 * and on PostgreSQL the connection is held only as long as the statements take.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from './open.js';

/** A value a port answers now (SQLite) or later (PostgreSQL). */
export type Awaitable<T> = T | Promise<T>;

/** Run `fn` in one transaction: all of its awaited store calls commit or none do (nested = savepoint). */
export type AsyncTransactor = <T>(fn: () => Promise<T>) => Promise<T>;

/** What every store facade offers a domain and `/readyz`, whatever the engine. */
export interface AsyncStoreHandle {
  /** `sqlite` or `postgres` (readiness detail, logs). */
  readonly engine: 'sqlite' | 'postgres';
  /** The async transaction of this store's database. */
  readonly txAsync: AsyncTransactor;
  /** Readiness: the database answers (SQLite: open; PostgreSQL: `SELECT 1` within 2 s). */
  ready(): Promise<boolean>;
  /** True until `close()`. */
  readonly isOpen: boolean;
  /** Close the database (idempotent). */
  close(): void | Promise<void>;
}

interface Frame { db: Db; depth: number }
const frames = new AsyncLocalStorage<Frame>();
const queues = new WeakMap<Db, Promise<unknown>>();
let savepoints = 0;

/**
 * The async transaction of one better-sqlite3 database (see the module header).
 * @returns a transactor; `fn`'s rejection is rethrown after the rollback.
 */
export function sqliteAsyncTransactor(db: Db): AsyncTransactor {
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    const outer = frames.getStore();
    if (outer && outer.db === db) {
      const name = `svc_asp_${++savepoints}`;
      db.exec(`SAVEPOINT ${name}`);
      try {
        const v = await frames.run({ db, depth: outer.depth + 1 }, fn);
        db.exec(`RELEASE ${name}`);
        return v;
      } catch (err) {
        if (db.inTransaction) { db.exec(`ROLLBACK TO ${name}`); db.exec(`RELEASE ${name}`); }
        throw err;
      }
    }
    const prev = queues.get(db) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => { release = r; });
    queues.set(db, prev.then(() => mine));
    await prev.catch(() => undefined);
    try {
      db.exec('BEGIN IMMEDIATE');
      try {
        const v = await frames.run({ db, depth: 1 }, fn);
        db.exec('COMMIT');
        return v;
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      }
    } finally {
      release();
    }
  };
}
