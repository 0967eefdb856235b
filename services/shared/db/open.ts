/**
 * SQLite open for every store (DESIGN.md "Process model": `db/<store>.sqlite`, WAL).
 *
 * Opens with WAL, `synchronous=NORMAL`, a busy timeout and foreign keys on, loads sqlite-vec, and
 * applies forward-only migrations from `migrations/<store>/NNNN_*.sql` tracked in `PRAGMA user_version`.
 * Only this module and services' `store/` folders import better-sqlite3.
 */
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { mkdirSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

/** A better-sqlite3 connection. */
export type Db = Database.Database;

/** Options of `openDb`. */
export interface OpenDbOptions {
  /** Directory holding `<store>.sqlite`; `':memory:'` for an in-memory database. */
  dbDir: string;
  /** Store name: file name and (unless `schema` is given) migrations folder. */
  store: string;
  /** Migrations folder when several stores share one schema (e.g. each service's `turn-outbox`); default `store`. */
  schema?: string;
  /** Absolute path of the repository's `migrations/`. */
  migrationsDir: string;
  /** Busy timeout, ms (default 5000). */
  busyTimeoutMs?: number;
  /** Load sqlite-vec (default true). */
  vec?: boolean;
}

/** A migration file discovered on disk. */
export interface Migration { version: number; name: string; sql: string }

/** List `migrations/<store>/NNNN_name.sql` in version order. Throws on duplicate or malformed names. */
export function listMigrations(migrationsDir: string, store: string): Migration[] {
  const dir = join(migrationsDir, store);
  if (!existsSync(dir)) return [];
  const out: Migration[] = [];
  const seen = new Set<number>();
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.sql')) continue;
    const m = /^(\d{4})_[a-z0-9_]+\.sql$/.exec(file);
    if (!m) throw new Error(`migration file name must be NNNN_name.sql: ${store}/${file}`);
    const version = Number(m[1]);
    if (seen.has(version)) throw new Error(`duplicate migration version ${version} in ${store}`);
    seen.add(version);
    out.push({ version, name: file, sql: readFileSync(join(dir, file), 'utf8') });
  }
  return out;
}

/**
 * Apply pending migrations (version > `PRAGMA user_version`), each in its own transaction.
 * Forward only: a database newer than the code refuses to open.
 * @returns the versions applied.
 */
export function migrate(db: Db, migrations: Migration[]): number[] {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.length ? migrations[migrations.length - 1]!.version : 0;
  if (current > latest) throw new Error(`database schema version ${current} is newer than this build (${latest})`);
  const applied: number[] = [];
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
    applied.push(m.version);
  }
  return applied;
}

/** Open (creating when absent) and migrate a store's database. */
export function openDb(opts: OpenDbOptions): Db {
  let file = ':memory:';
  if (opts.dbDir !== ':memory:') {
    mkdirSync(opts.dbDir, { recursive: true });
    file = join(opts.dbDir, `${opts.store}.sqlite`);
  }
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
    db.pragma('foreign_keys = ON');
    if (opts.vec !== false) sqliteVec.load(db);
    migrate(db, listMigrations(opts.migrationsDir, opts.schema ?? opts.store));
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
