/**
 * A connection pool to one service's schema (issue 21 item 1). Every connection starts with
 * `search_path = <schema>, public` (extensions such as pgvector live in `public`), and 64-bit
 * integers come back as JavaScript numbers (ids and sequence numbers stay below 2^53; a larger
 * one throws rather than losing digits). Only services/shared/db/pg and services' `store/pg/`
 * import `pg`.
 */
import pg from 'pg';
import { redactUrl, type PgSettings } from './settings.js';

const INT8_OID = 20;

function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`bigint ${text} does not fit a JavaScript number`);
  return n;
}

/** Type parsers of every pool: int8 as number, the rest as node-pg's defaults. */
export const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8_OID && format !== 'binary') return parseInt8;
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * Open a pool for `s` (no connection is made until the first query).
 * @throws Error when the schema name is not a plain identifier.
 */
export function openPgPool(s: PgSettings): pg.Pool {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(s.schema)) throw new Error(`schema "${s.schema}" is not a plain identifier`);
  const pool = new pg.Pool({
    connectionString: s.url,
    max: s.poolMax ?? 10,
    options: `-c search_path=${s.schema},public`,
    types: pgTypes,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client losing its server (restart, failover) must not crash the process: the pool drops it.
  pool.on('error', (err) => { console.error(`postgres pool (${redactUrl(s.url)}): idle client error: ${err.message}`); });
  // A client the pool already let go of (being ended) may still hear the server close on it; its
  // queries report errors through their promises, so this listener only keeps the process alive.
  pool.on('connect', (client) => { client.on('error', () => undefined); });
  return pool;
}

export type { Pool, PoolClient } from 'pg';
