/**
 * Where a service keeps its stores on PostgreSQL (issue 21 item 1; DESIGN.md "Scale-out path"):
 * `SVC_DATABASE_URL` for every service, `SVC_<SERVICE>_DATABASE_URL` (e.g.
 * `SVC_AGENT_RUNTIME_DATABASE_URL`) for one. main/config/database.ts reads the variables; this
 * module only shapes and resolves them. Each service lives in its own schema (`audit`,
 * `agent_runtime`, ...) of whatever database its URL names, so one database can hold them all.
 */

/** The database URLs of the stack: a default and per-service overrides (all absent = SQLite). */
export interface DatabaseUrls {
  /** `SVC_DATABASE_URL`, or null. */
  default: string | null;
  /** `SVC_<SERVICE>_DATABASE_URL` by service name (`agent-runtime`, `audit`, ...). */
  perService: Readonly<Record<string, string>>;
}

/** How one service reaches its PostgreSQL schema. */
export interface PgSettings {
  /** `postgres://user:pass@host:port/db` (libpq URL; `?host=/socket/dir` for a unix socket). */
  url: string;
  /** Schema of the service (a plain identifier; see `schemaOf`). */
  schema: string;
  /** Most connections of this process's pool (default 10). */
  poolMax?: number;
}

/** The schema name of a service: `agent-runtime` -> `agent_runtime`. @throws Error for a name that is no identifier. */
export function schemaOf(service: string): string {
  const s = service.toLowerCase().replace(/-/g, '_');
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(s)) throw new Error(`service name "${service}" cannot be a PostgreSQL schema name`);
  return s;
}

/** The PostgreSQL settings of `service`, or null when it stays on SQLite (no URL applies). */
export function pgSettingsFor(urls: DatabaseUrls, service: string, poolMax?: number): PgSettings | null {
  const url = urls.perService[service] ?? urls.default;
  if (!url) return null;
  return poolMax === undefined ? { url, schema: schemaOf(service) } : { url, schema: schemaOf(service), poolMax };
}

/** The URL without its password (for logs and errors). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<unparsable database URL>';
  }
}
