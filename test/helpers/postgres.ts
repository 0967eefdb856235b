/**
 * A throwaway PostgreSQL 15 cluster for tests and benches (issue 21 items 1 and 5): `initdb` into a
 * temp dir, `pg_ctl start` on a free loopback port with its unix socket in the same dir, trust auth
 * for the superuser `postgres`, the `vector` extension (pgvector) created in the `svc` database,
 * stopped and deleted by `stop()` (and at process exit when a test forgets).
 *
 * PostgreSQL refuses to run as root: as root the server runs as the `postgres` OS user (`runuser`),
 * the temp dir handed to it; as any other user it runs as that user. Binaries are looked up in
 * `SVC_PG_BIN`, then /usr/lib/postgresql/15/bin (Debian's postgresql-15), then PATH.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './ports.js';

const BIN_DIRS = [process.env.SVC_PG_BIN, '/usr/lib/postgresql/15/bin', ...(process.env.PATH ?? '').split(':')].filter((d): d is string => !!d);

function bin(name: string): string | null {
  for (const d of BIN_DIRS) if (existsSync(join(d, name))) return join(d, name);
  return null;
}

function runAsUser(): { uid: number; gid: number } | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

/**
 * Why a PostgreSQL with pgvector cannot run here, or null when it can (tests skip with this reason).
 * Checks the binaries, the non-root user when running as root, and pgvector's control file.
 */
export function postgresMissing(): string | null {
  const initdb = bin('initdb');
  const pgCtl = bin('pg_ctl');
  if (!initdb || !pgCtl) return 'PostgreSQL 15 is not installed (apt-get install postgresql-15; or set SVC_PG_BIN)';
  if (process.getuid?.() === 0 && !runAsUser()) return 'running as root and there is no `postgres` OS user to run the server as';
  try {
    const pgConfig = bin('pg_config');
    const share = pgConfig ? execFileSync(pgConfig, ['--sharedir'], { encoding: 'utf8' }).trim() : '/usr/share/postgresql/15';
    if (!existsSync(join(share, 'extension', 'vector.control'))) {
      return 'pgvector is not installed (build it from ../shared/vendor/pgvector-0.8.6.tar.gz: make && make install; .ci/run does)';
    }
  } catch {
    return 'pg_config failed: cannot tell whether pgvector is installed';
  }
  return null;
}

/** A running throwaway cluster. */
export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/svc` (trust auth, no password). */
  url: string;
  port: number;
  /** Directory of the unix socket (and of the data). */
  dir: string;
  /** Run SQL as the superuser in `svc` (test setup and tamper checks). */
  sql<R extends Record<string, unknown> = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** Stop the server and delete its files (idempotent). */
  stop(): Promise<void>;
}

/** Options of `startPostgres`. */
export interface StartPostgresOptions {
  /** Extra `postgresql.conf` lines (e.g. `max_connections = 200`). */
  conf?: string[];
}

/**
 * Start a cluster. Takes about 2-4 s (initdb dominates).
 * @throws Error with the server log's tail when it does not come up.
 */
export async function startPostgres(opts: StartPostgresOptions = {}): Promise<TestPostgres> {
  const missing = postgresMissing();
  if (missing) throw new Error(missing);
  const as = runAsUser();
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  if (as) chownSync(dir, as.uid, as.gid);
  const run = (exe: string, args: string[]): void => {
    const [cmd, argv] = as ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args];
    execFileSync(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  };
  const port = await freePort();
  let started = false;
  const stopSync = (): void => {
    if (started) {
      started = false;
      // Smart first: clients that just sent Terminate finish cleanly (fast would send them an error
      // their pool no longer listens for); fast when something still holds a connection.
      try { run(bin('pg_ctl')!, ['-D', data, '-m', 'smart', '-w', '-t', '5', 'stop']); } catch {
        try { run(bin('pg_ctl')!, ['-D', data, '-m', 'fast', '-w', 'stop']); } catch { /* already down */ }
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const onExit = (): void => stopSync();
  try {
    run(bin('initdb')!, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
    writeFileSync(join(data, 'postgresql.auto.conf'), [
      `port = ${port}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${dir}'`,
      'max_connections = 100', 'shared_buffers = 128MB', 'maintenance_work_mem = 512MB', ...(opts.conf ?? []), '',
    ].join('\n'));
    if (as) chownSync(join(data, 'postgresql.auto.conf'), as.uid, as.gid);
    run(bin('pg_ctl')!, ['-D', data, '-l', log, '-w', '-t', '30', 'start']);
    started = true;
    process.once('exit', onExit);
  } catch (err) {
    let tail = '';
    try { tail = execFileSync('tail', ['-20', log], { encoding: 'utf8' }); } catch { /* no log yet */ }
    stopSync();
    throw new Error(`PostgreSQL did not start: ${(err as Error).message}\n${tail}`);
  }
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await admin.connect();
  await admin.query('CREATE DATABASE svc');
  await admin.end();
  const url = `postgres://postgres@127.0.0.1:${port}/svc`;
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('connect', (client) => { client.on('error', () => undefined); });
  await pool.query('CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public');
  return {
    url, port, dir,
    sql: async (text, params) => (await pool.query(text, params)).rows,
    stop: async () => {
      process.removeListener('exit', onExit);
      await pool.end().catch(() => undefined);
      stopSync();
    },
  };
}
