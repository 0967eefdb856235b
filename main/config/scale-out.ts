/**
 * The scale-out slice of the configuration (issue 21 items 2-4; DESIGN.md "Scale-out path"):
 *
 * - `SVC_<SERVICE>_URL` (e.g. `SVC_AGENT_RUNTIME_URL=http://runtime-1:8001`): where a peer service
 *   runs when this process does not run it (`npm run serve -- --service ...`, main/cli.ts). Ignored
 *   by the desktop supervisor, which runs every service itself.
 * - `SVC_SERVICE_BIND_HOST`: the address every service of a `--service` process binds (a container
 *   binds `0.0.0.0` so its peers reach it); default the stack's bind host.
 * - `REDIS_URL`: shared state between instances (rate limits, parked logins, approval wake-ups,
 *   notification streams); absent = in-process.
 * - `SVC_OBJECT_STORE_URL`: `s3://<bucket>[/<prefix>]?endpoint=<url>&region=<r>&path_style=true|false`
 *   selects the S3-compatible object store (credentials: `SVC_S3_ACCESS_KEY_ID`,
 *   `SVC_S3_SECRET_ACCESS_KEY`, or `_FILE` variants); absent = `<data dir>/objects`.
 *
 * Errors: `ConfigError` naming the variable.
 */
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';
import type { ObjectStoreSettings } from '../../services/shared/objects/settings.js';
import type { DatabaseUrls } from '../../services/shared/db/pg/settings.js';
import { readDatabaseUrls } from './database.js';
import { ConfigError, secret, str, type Env } from './env.js';

/** The name of the peer-URL variable of `name`: `SVC_AGENT_RUNTIME_URL` for `agent-runtime`. */
export function peerUrlEnvName(name: ServiceName): string {
  return `SVC_${name.toUpperCase().replace(/-/g, '_')}_URL`;
}

/** The scale-out settings. */
export interface ScaleOutSettings {
  /** Peer base URLs by service (no trailing slash). */
  peerUrls: Partial<Record<ServiceName, string>>;
  /** Bind address of the services of a `--service` process, or null for the stack's host. */
  serviceBindHost: string | null;
  /** REDIS_URL, or null. */
  redisUrl: string | null;
  /** The object store (local folder unless SVC_OBJECT_STORE_URL). */
  objectStore: ObjectStoreSettings | null;
  /** SVC_DATABASE_URL and SVC_<SERVICE>_DATABASE_URL (main/config/database.ts); all null = SQLite. */
  databaseUrls: DatabaseUrls;
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = str(env, name);
  if (!raw) return undefined;
  let u: URL;
  try { u = new URL(raw); } catch { throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`); }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/**
 * Parse `SVC_OBJECT_STORE_URL` (see the module header).
 * @throws ConfigError for a malformed URL or missing credentials.
 */
export function parseObjectStoreUrl(env: Env): ObjectStoreSettings | null {
  const raw = str(env, 'SVC_OBJECT_STORE_URL');
  if (!raw) return null;
  let u: URL;
  try { u = new URL(raw); } catch { throw new ConfigError(`SVC_OBJECT_STORE_URL must look like s3://bucket?endpoint=http://host:port, got "${raw}"`); }
  if (u.protocol !== 's3:' || !u.hostname) throw new ConfigError('SVC_OBJECT_STORE_URL must look like s3://bucket[/prefix]?endpoint=http://host:port');
  const endpoint = u.searchParams.get('endpoint');
  if (endpoint) {
    try { new URL(endpoint); } catch { throw new ConfigError('SVC_OBJECT_STORE_URL: endpoint= must be a URL'); }
  }
  const accessKeyId = secret(env, 'SVC_S3_ACCESS_KEY_ID');
  const secretAccessKey = secret(env, 'SVC_S3_SECRET_ACCESS_KEY');
  if (!accessKeyId !== !secretAccessKey) throw new ConfigError('SVC_S3_ACCESS_KEY_ID and SVC_S3_SECRET_ACCESS_KEY go together; set both or neither (then the AWS SDK default chain applies)');
  const prefix = decodeURIComponent(u.pathname.replace(/^\/+|\/+$/g, ''));
  const pathStyle = u.searchParams.get('path_style');
  return {
    kind: 's3',
    bucket: u.hostname,
    prefix,
    endpoint: endpoint ?? null,
    region: u.searchParams.get('region') ?? 'us-east-1',
    // An explicit endpoint (MinIO, s3rver, Ceph) nearly always wants path-style addressing.
    forcePathStyle: pathStyle === null ? Boolean(endpoint) : pathStyle === 'true',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : null,
  };
}

/**
 * Read the scale-out settings.
 * @throws ConfigError naming the variable.
 */
export function readScaleOut(env: Env): ScaleOutSettings {
  const peerUrls: Partial<Record<ServiceName, string>> = {};
  for (const name of SERVICE_NAMES) {
    const url = httpUrl(env, peerUrlEnvName(name));
    if (url) peerUrls[name] = url;
  }
  const redisUrl = str(env, 'REDIS_URL') || null;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  return { peerUrls, serviceBindHost: str(env, 'SVC_SERVICE_BIND_HOST') || null, redisUrl, objectStore: parseObjectStoreUrl(env), databaseUrls: readDatabaseUrls(env) };
}
