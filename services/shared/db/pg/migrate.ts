/**
 * PostgreSQL migrations (issue 21 item 1): forward-only files `migrations/<service>/pg/NNNN_name.sql`
 * beside the SQLite ones (`migrations/<service>/NNNN_name.sql`), found by the same `listMigrations`
 * and applied the same way: in version order, each in its own transaction, a schema newer than the
 * code refusing to open. Where SQLite keeps `PRAGMA user_version`, PostgreSQL keeps
 * `<schema>.schema_migrations (version, name, applied_at)`. Several processes starting at once
 * serialise on one advisory lock, so each migration runs exactly once.
 */
import { join } from 'node:path';
import type pg from 'pg';
import { listMigrations, type Migration } from '../open.js';

/** Advisory-lock key (two int4) every migrator of the stack takes: 'svc' and 'migr' in ASCII. */
const LOCK = [0x737663, 0x6d696772] as const;

/** `migrations/<service>/pg/NNNN_name.sql` in version order. @throws Error on duplicate or malformed names. */
export function listPgMigrations(migrationsDir: string, service: string): Migration[] {
  return listMigrations(migrationsDir, join(service, 'pg'));
}

/**
 * Create `schema` when absent and apply its pending migrations (statements run with
 * `search_path = <schema>, public`).
 * @returns the versions applied.
 * @throws Error when the schema is newer than this build or a migration fails (that migration is
 *   rolled back; earlier ones stay).
 */
export async function migratePg(pool: pg.Pool, schema: string, migrations: Migration[]): Promise<number[]> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`schema "${schema}" is not a plain identifier`);
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1, $2)', [...LOCK]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(`SET search_path = ${schema}, public`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      const cur = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${schema}.schema_migrations`);
      const current = cur.rows[0]?.v ?? 0;
      const latest = migrations.length ? migrations[migrations.length - 1]!.version : 0;
      if (current > latest) throw new Error(`database schema ${schema} is at version ${current}, newer than this build (${latest})`);
      const applied: number[] = [];
      for (const m of migrations) {
        if (m.version <= current) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${schema}/${m.name} failed: ${(err as Error).message}`);
        }
        applied.push(m.version);
      }
      return applied;
    } finally {
      await client.query('RESET search_path');
      await client.query('SELECT pg_advisory_unlock($1, $2)', [...LOCK]);
    }
  } finally {
    client.release();
  }
}
