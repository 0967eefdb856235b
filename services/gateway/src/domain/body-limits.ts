/**
 * The request body limit of every upstream route, as the gateway knows it (issue 11 item 4,
 * "Bounded input everywhere"): the gateway answers 413 `payload_too_large` itself, before a byte
 * is forwarded, when a body exceeds what the owning service would accept. It used to accept up to
 * its own `maxRequestBodyBytes` (25 MiB) for every route; a service with a 1 MiB limit then cut
 * the body and the client saw an empty 499.
 *
 * The figures are each service's `bodyLimit` (its `defineService` and route-level `bodyLimit`s);
 * test/integration/gateway-body-limit.test.ts builds every service and fails when a figure here
 * drifts from theirs. Two of them move with settings of their service, which main/config passes to
 * the gateway (`GatewayConfig.upstreamBodySettings`).
 */
import type { UpstreamName } from '../../../shared/services.js';
import { SANDBOX_BODY_LIMIT_BYTES } from '../../../sandbox/src/contracts.js';
import { NOTIFICATION_BODY_LIMIT, WEBHOOK_BODY_LIMIT } from '../../../agent-runtime/src/contracts.js';
import { LOGIN_2FA_BODY_LIMIT_BYTES } from '../contracts.js';
import type { LocalTargetName } from './route-table.js';

const KiB = 1024;
const MiB = 1024 * 1024;

/** Settings of other services that move their body limits (read by main/config from the same environment). */
export interface UpstreamBodySettings {
  /** The guardrail's `maxBodyBytes` (SVC_GUARDRAIL_MAX_BODY_BYTES). */
  guardrailMaxBodyBytes: number;
  /** The knowledge service's `maxUploadBytes` (KNOWLEDGE_MAX_UPLOAD_BYTES). */
  knowledgeMaxUploadBytes: number;
}

/** The defaults of those settings (main/config/services/{guardrail,knowledge}.ts; a unit test keeps them equal). */
export const DEFAULT_UPSTREAM_BODY_SETTINGS: Readonly<UpstreamBodySettings> = Object.freeze({
  guardrailMaxBodyBytes: 2 * MiB,
  knowledgeMaxUploadBytes: 50 * MiB,
});

type Limit = (s: UpstreamBodySettings) => number;
const fixed = (bytes: number): Limit => () => bytes;
/** The knowledge upload routes' limit: the upload limit plus room for the multipart envelope. */
const knowledgeUpload: Limit = (s) => s.knowledgeMaxUploadBytes + MiB;

/** Each service's own limit (`defineService({ bodyLimit })`, default 1 MiB), bytes. */
const SERVICE_LIMITS: Readonly<Record<UpstreamName, Limit>> = {
  'agent-runtime': fixed(32 * MiB),
  guardrail: (s) => s.guardrailMaxBodyBytes,
  memory: fixed(MiB),
  'inference-router': fixed(25 * MiB),
  sandbox: fixed(SANDBOX_BODY_LIMIT_BYTES),
  knowledge: fixed(64 * MiB),
  audit: fixed(16 * MiB),
  observability: fixed(MiB),
  auth: fixed(64 * KiB),
  dirauth: fixed(MiB),
};

/** Routes with a `bodyLimit` of their own: service, method and upstream path (as the service routes it). */
const ROUTE_LIMITS: ReadonlyArray<{ service: UpstreamName; method: string; path: string; limit: Limit }> = [
  { service: 'audit', method: 'POST', path: '/v1/audit/artifacts', limit: fixed(48 * MiB) },
  { service: 'agent-runtime', method: 'POST', path: '/v1/internal/notifications', limit: fixed(NOTIFICATION_BODY_LIMIT) },
  // Signed webhook deliveries (issue 18 item 2): public, so bounded tightly; `/*` covers `/v1/webhook/{hook_id}`.
  { service: 'agent-runtime', method: 'POST', path: '/v1/webhook', limit: fixed(WEBHOOK_BODY_LIMIT) },
  { service: 'agent-runtime', method: 'POST', path: '/v1/webhook/*', limit: fixed(WEBHOOK_BODY_LIMIT) },
  { service: 'knowledge', method: 'POST', path: '/v1/knowledge/ingest', limit: knowledgeUpload },
  { service: 'knowledge', method: 'POST', path: '/v1/knowledge/ingest/text', limit: knowledgeUpload },
  { service: 'knowledge', method: 'POST', path: '/v1/knowledge/ingest/batch', limit: (s) => Math.max(knowledgeUpload(s), 64 * MiB) },
];

/**
 * Body limits of the gateway's own answers that read a body (issue 14 item 3), bytes: the password
 * login is forwarded to auth and keeps auth's limit for it; the second-factor step is answered here
 * and takes 4 KiB. Any other local target reads no body (null: the gateway's `maxRequestBodyBytes`).
 */
const LOCAL_LIMITS: Readonly<Partial<Record<LocalTargetName, { upstream: { service: UpstreamName; method: string; path: string } } | { bytes: number }>>> = {
  login: { upstream: { service: 'auth', method: 'POST', path: '/v1/auth/login' } },
  login_2fa: { bytes: LOGIN_2FA_BODY_LIMIT_BYTES },
  refresh: { upstream: { service: 'auth', method: 'POST', path: '/v1/auth/refresh' } },
  // Issue 19 item 2: `POST /v1/admin/backups/import` takes a whole archive (capped by maxRequestBodyBytes).
  backups: { bytes: 1024 * MiB },
  // Offline update bundles (issue 19 item 4), streamed to disk by routes/ops.ts.
  ops: { bytes: 512 * MiB },
};

/** Body limits of the upstream routes, resolved for one configuration. */
export class BodyLimits {
  private readonly services: ReadonlyMap<UpstreamName, number>;
  private readonly routes: ReadonlyMap<string, number>;

  /** @param settings the settings that move limits (default: their defaults). */
  constructor(settings: UpstreamBodySettings = DEFAULT_UPSTREAM_BODY_SETTINGS) {
    this.services = new Map((Object.keys(SERVICE_LIMITS) as UpstreamName[]).map((n) => [n, SERVICE_LIMITS[n](settings)]));
    this.routes = new Map(ROUTE_LIMITS.map((r) => [`${r.service} ${r.method} ${r.path}`, r.limit(settings)]));
  }

  /**
   * The largest body `service` accepts for `method` on `path` (its path, after the gateway's
   * rewrite, without the query), bytes.
   */
  upstream(service: UpstreamName, method: string, path: string): number {
    return this.routes.get(`${service} ${method} ${path}`) ?? this.prefixed(service, method, path) ?? this.services.get(service)!;
  }

  /** The limit of a `/*` row covering one more segment under its prefix (`/v1/webhook/{hook_id}`), or undefined. */
  private prefixed(service: UpstreamName, method: string, path: string): number | undefined {
    const slash = path.lastIndexOf('/');
    return slash > 0 ? this.routes.get(`${service} ${method} ${path.slice(0, slash)}/*`) : undefined;
  }

  /** The body limit of a gateway-owned answer (`LOCAL_LIMITS`), bytes, or null when it has none of its own. */
  local(handler: LocalTargetName): number | null {
    const l = LOCAL_LIMITS[handler];
    if (!l) return null;
    return 'bytes' in l ? l.bytes : this.upstream(l.upstream.service, l.upstream.method, l.upstream.path);
  }
}
