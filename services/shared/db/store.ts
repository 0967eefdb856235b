/**
 * A store facade over one SQLite database (DESIGN.md "Inside a service": `store/` is the only code
 * that touches SQLite). A service's store file lists its table-group stores; this module adds what
 * every facade has — a transaction helper, an open flag for readiness, an idempotent close — so no
 * service writes that boilerplate again. The table-group stores implement the service's
 * `domain/ports.ts` interfaces, which a PostgreSQL implementation could stand behind.
 */
import { openDb, type Db, type OpenDbOptions } from './open.js';
import { sqliteAsyncTransactor, type AsyncStoreHandle } from './async-store.js';

/** Run `fn` atomically (all of its store calls commit or none do; nested calls become savepoints). `fn` must be synchronous. */
export type Transactor = <T>(fn: () => T) => T;

/** What every store facade has besides its table groups (the async members: issue 21 item 1). */
export interface StoreHandle extends AsyncStoreHandle {
  /** Runs a synchronous function in one SQLite transaction. */
  readonly tx: Transactor;
  /** True until `close()` (readiness checks). */
  readonly isOpen: boolean;
  /** Close the database (idempotent). */
  close(): void;
}

/** A store facade: the table groups `T` plus the handle. */
export type Store<T extends object> = Readonly<T> & StoreHandle;

/**
 * Open (create, migrate) the database `opts` names and build its table groups on it.
 * @param tables builds the table-group stores on the open database (prepared statements once).
 * @throws Error when the database cannot be opened or migrated, or `tables` throws (the database
 *   is closed first).
 */
export function openStore<T extends object>(opts: OpenDbOptions, tables: (db: Db) => T): Store<T> {
  const db = openDb(opts);
  let groups: T;
  try {
    groups = tables(db);
  } catch (err) {
    db.close();
    throw err;
  }
  const txAsync = sqliteAsyncTransactor(db);
  return Object.freeze({
    ...groups,
    engine: 'sqlite' as const,
    tx: <R>(fn: () => R): R => db.transaction(fn)(),
    txAsync,
    ready: (): Promise<boolean> => Promise.resolve(db.open),
    get isOpen(): boolean { return db.open; },
    close: (): void => { if (db.open) db.close(); },
  });
}
