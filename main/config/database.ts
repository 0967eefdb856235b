/**
 * The database slice of the configuration (issue 21 item 1): `SVC_DATABASE_URL` puts every
 * service's stores in that PostgreSQL database (one schema per service), `SVC_<SERVICE>_DATABASE_URL`
 * (e.g. `SVC_KNOWLEDGE_DATABASE_URL`) one service's; both accept a `_FILE` variant (the URL carries a
 * password). Unset: SQLite files under the data directory, the desktop default.
 *
 * Errors: `ConfigError` naming the variable (the URL itself is never echoed: it may hold a password).
 */
import { SERVICE_NAMES } from '../../services/shared/services.js';
import type { DatabaseUrls } from '../../services/shared/db/pg/settings.js';
import { ConfigError, secret, type Env } from './env.js';

/** The name of the per-service variable: `SVC_AGENT_RUNTIME_DATABASE_URL` for `agent-runtime`. */
export function databaseUrlEnvName(service: string): string {
  return `SVC_${service.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`;
}

function pgUrl(env: Env, name: string): string | null {
  const raw = secret(env, name);
  if (!raw) return null;
  let u: URL;
  try { u = new URL(raw); } catch { throw new ConfigError(`${name} must be a postgres:// URL`); }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw new ConfigError(`${name} must be a postgres:// or postgresql:// URL`);
  return raw;
}

/**
 * Read the database URLs.
 * @throws ConfigError when a variable is set to something other than a postgres URL.
 */
export function readDatabaseUrls(env: Env): DatabaseUrls {
  const perService: Record<string, string> = {};
  for (const name of SERVICE_NAMES) {
    const url = pgUrl(env, databaseUrlEnvName(name));
    if (url) perService[name] = url;
  }
  return { default: pgUrl(env, 'SVC_DATABASE_URL'), perService };
}
