/**
 * The steps of the gateway's admission chain (spec: "What the service does" 1-6, "Authentication",
 * "Limits"), one method each, run in order by the `gateway-admission` hook:
 *
 * 1. `begin`: request state and correlation id;
 * 2. `checkBodySize`: 413 `payload_too_large` from Content-Length, before any byte is read;
 * 3. `limitIp`: 429 `rate_limited` past the per-IP limit;
 * 4. `pinTenant`: 403 `tenant_mismatch` when `X-Tenant-ID` names another tenant;
 * 5. `matchRoute`: the route table's longest match (public routes stop here);
 * 6. `bearerToken` + `identify`: 401 `token_*`, or the anonymous principal with auth disabled;
 * 7. `guardAdmin`: 403 `admin_required` on `/v1/admin/*` without the admin role;
 * 8. `limitTenant`: 429 `rate_limited` past the per-tenant limit;
 * 9. `startTurn`: turn id, `X-Svc-Turn-Id` and the `turn_started` event;
 *
 * then `sealBeforeSend` as the answer goes out: the terminal event (`turn_sealed`, or `turn_failed`
 * on a 5xx or an aborted answer) is written to the gateway's durable outbox before the answer's last
 * byte (issue 11 item 7), and `endTurn` when the answer is finished (counting; the terminal event of
 * an answer that never completed). Every step is synchronous except the two limits (the limiter
 * store may be Redis).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../../../shared/config.js';
import type { TurnEventClient } from '../../../shared/events/turn-events.js';
import { ulidFactory } from '../../../shared/identity/ulid.js';
import { DomainError, invalidInput } from '../../../shared/kit/domain-error.js';
import { CORRELATION_ID_HEADER, CORRELATION_ID_PATTERN, TURN_ID_HEADER, type GatewayErrorCode, type ValidatedClaims } from '../contracts.js';
import { IdentityCache, anonymousIdentity, refreshStamp, type IdentitySettings, type StampedIdentity } from '../domain/identity.js';
import { allowedHostSet, hostAllowed } from '../domain/host.js';
import { normalisePath } from '../domain/path.js';
import { RouteTable, type RouteRule } from '../domain/route-table.js';
import type { GatewayCounters } from './metrics.js';
import { isStreamPayload, runAtStreamEnd } from './turn-end.js';

/** What the chain learned about a request (`req.gw`), read by the proxy and local handlers. */
export interface GatewayState {
  /** The normalised request path (no query): what was routed, guarded and is forwarded. */
  path: string;
  /** The matched route, or null (renderer files, 404). */
  rule: RouteRule | null;
  /** The stamped identity, on routes behind the bearer chain. */
  identity: StampedIdentity | null;
  /** The turn id, once the turn started. */
  turnId: string | null;
  /**
   * The turn's terminal event: not yet emitted, due when the streamed answer ends, emitted, or
   * deferred to a later request that finishes the same turn (an AG-UI run resumed after an interrupt).
   */
  turnEnd: 'open' | 'streaming' | 'emitted' | 'deferred';
  /**
   * Take the terminal event away from this request (issue 17 item 5): it is no longer emitted when
   * this answer ends; the returned seal emits it later (`turn_failed` when `incomplete` or a 5xx).
   * Null when the turn has none due (no turn, or already emitted).
   */
  deferTerminal(): TurnSeal | null;
  correlationId: string;
  /** `performance.now()` when the chain began, ms. */
  startedAt: number;
}

/** Emits a deferred turn's terminal event once (later calls do nothing). */
export type TurnSeal = (status: number, incomplete: boolean) => void;

/** A rate limiter of `@fastify/rate-limit` (`app.createRateLimit`). */
export type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/** What the steps need. */
export interface AdmissionDeps {
  cfg: GatewayConfig;
  settings: IdentitySettings;
  events: TurnEventClient;
  counters: GatewayCounters;
  ipLimiter: Limiter;
  tenantLimiter: Limiter;
}

const nextTurnId = ulidFactory();

function refuse(code: GatewayErrorCode, message: string, headers?: Record<string, string>): DomainError<GatewayErrorCode> {
  return new DomainError(code, message, headers ? { headers } : {});
}

/** The admission steps of one gateway (routes, identity cache, limits, turn events). */
export class AdmissionSteps {
  private readonly cfg: GatewayConfig;
  private readonly settings: IdentitySettings;
  private readonly events: TurnEventClient;
  private readonly counters: GatewayCounters;
  private readonly ipLimiter: Limiter;
  private readonly tenantLimiter: Limiter;
  private readonly routes = new RouteTable();
  private readonly hosts: ReadonlySet<string>;
  private readonly identities: IdentityCache;
  private anonymous: StampedIdentity | null;

  /** @param deps configuration, identity settings, turn-event client, counters and limiters. */
  constructor(deps: AdmissionDeps) {
    this.cfg = deps.cfg;
    this.settings = deps.settings;
    this.events = deps.events;
    this.counters = deps.counters;
    this.ipLimiter = deps.ipLimiter;
    this.tenantLimiter = deps.tenantLimiter;
    this.identities = new IdentityCache(deps.settings, deps.cfg.tokenCacheMax);
    this.hosts = allowedHostSet(deps.cfg.publicUrl, deps.cfg.host, deps.cfg.allowedHosts ?? []);
    this.anonymous = deps.cfg.authEnabled ? null : anonymousIdentity(deps.settings);
  }

  /** Attach the request state (`req.gw`) and answer with the correlation id (kept or fresh). */
  begin(req: FastifyRequest, reply: FastifyReply): GatewayState {
    const cid = req.headers[CORRELATION_ID_HEADER];
    const state: GatewayState = {
      path: '', rule: null, identity: null, turnId: null, turnEnd: 'open', startedAt: performance.now(),
      correlationId: typeof cid === 'string' && CORRELATION_ID_PATTERN.test(cid) ? cid : randomUUID(),
      deferTerminal: () => {
        if (!state.turnId || !state.identity || state.turnEnd === 'emitted' || state.turnEnd === 'deferred') return null;
        state.turnEnd = 'deferred';
        return (status, incomplete) => {
          if (state.turnEnd !== 'deferred') return;
          state.turnEnd = 'open';
          // A paused run's seal: its answer already ended; storing goes on in the background.
          void this.emitTerminal(state, status, incomplete);
        };
      },
    };
    req.gw = state;
    void reply.header(CORRELATION_ID_HEADER, state.correlationId);
    return state;
  }

  /** @throws `payload_too_large` when Content-Length exceeds `maxRequestBodyBytes`. */
  checkBodySize(req: FastifyRequest): void {
    const len = req.headers['content-length'];
    if (len !== undefined && Number(len) > this.cfg.maxRequestBodyBytes) {
      throw refuse('payload_too_large', `request body exceeds ${this.cfg.maxRequestBodyBytes} bytes`);
    }
  }

  /** @throws `rate_limited` (with Retry-After) past `rateLimitIpPerMinute` for the client IP. */
  limitIp(req: FastifyRequest): Promise<void> {
    return limit(this.ipLimiter, req, 'per-IP');
  }

  /** @throws `tenant_mismatch` when `X-Tenant-ID` is present and not the pinned tenant. */
  pinTenant(req: FastifyRequest): void {
    const inbound = req.headers['x-tenant-id'];
    if (inbound !== undefined && inbound !== this.cfg.tenantId) {
      throw refuse('tenant_mismatch', 'X-Tenant-ID does not match the pinned tenant');
    }
  }

  /** @throws `host_not_allowed` (403) when `Host` names neither loopback, the public URL's host nor an allowed host. */
  checkHost(req: FastifyRequest): void {
    if (!hostAllowed(req.headers.host, this.hosts)) {
      throw new DomainError<GatewayErrorCode>('host_not_allowed', 'this workstation does not answer that host name (SVC_ALLOWED_HOSTS)');
    }
  }

  /**
   * The one reading of the request path (`domain/path.ts`), kept on the state for routing, the
   * admin guard, the turn event and proxying.
   * @throws `invalid_request` (400) for an API or gateway-routed path with an encoded slash, backslash
   *   or NUL, or a malformed escape; any other such path is left as it is and matches nothing (404).
   */
  readPath(req: FastifyRequest, st: GatewayState): string {
    const raw = req.url.split('?', 1)[0]!;
    const n = normalisePath(raw);
    if (!n.ok) {
      // Outside the API and every gateway route there is nothing to guard: such a path matches no
      // renderer file either, and answers 404 as any other missing file does.
      if (!raw.startsWith('/v1') && this.routes.match(req.method, raw) === null) { st.path = raw; return raw; }
      throw invalidInput(n.reason === 'encoded_separator'
        ? 'the request path contains an encoded slash, backslash or NUL' : 'the request path contains a malformed percent-escape', 'path');
    }
    st.path = n.path;
    return n.path;
  }

  /** The winning route for `method` + `path`, or null. */
  matchRoute(method: string, path: string): RouteRule | null {
    return this.routes.match(method, path);
  }

  /**
   * The bearer token of the request, or null when auth is disabled (dev mode).
   * @throws `token_missing` / `token_invalid` (not `Bearer <token>`), with `WWW-Authenticate`.
   */
  bearerToken(req: FastifyRequest): string | null {
    if (!this.cfg.authEnabled) return null;
    const auth = req.headers.authorization;
    if (!auth) throw refuse('token_missing', 'bearer token required', { 'www-authenticate': 'Bearer' });
    const m = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(auth);
    if (!m) throw refuse('token_invalid', 'authorization header must be "Bearer <token>"', { 'www-authenticate': 'Bearer error="invalid_token"' });
    return m[1]!;
  }

  /** The stamped identity of a validated token (cached per token). */
  identify(token: string, claims: ValidatedClaims): StampedIdentity {
    return this.identities.identity(token, claims);
  }

  /** The anonymous identity of dev mode, re-signed when its stamp nears expiry. */
  anonymousIdentity(): StampedIdentity {
    this.anonymous = refreshStamp(this.anonymous!, this.settings);
    return this.anonymous;
  }

  /** @throws `admin_required` on `/v1/admin` and below without the admin role. */
  guardAdmin(path: string, identity: StampedIdentity): void {
    if ((path === '/v1/admin' || path.startsWith('/v1/admin/')) && !identity.principal.roles.includes('admin')) {
      throw refuse('admin_required', 'this route requires the admin role');
    }
  }

  /** @throws `rate_limited` (with Retry-After) past `rateLimitTenantPerMinute` for the tenant. */
  limitTenant(req: FastifyRequest): Promise<void> {
    return limit(this.tenantLimiter, req, 'per-tenant');
  }

  /** Give the request its turn id (answered as `X-Svc-Turn-Id`) and emit `turn_started`. */
  startTurn(req: FastifyRequest, reply: FastifyReply, st: GatewayState, path: string, rule: RouteRule, identity: StampedIdentity): void {
    st.turnId = nextTurnId();
    void reply.header(TURN_ID_HEADER, st.turnId);
    this.events.emit(st.turnId, identity.principal.id, 'turn_started', {
      method: req.method, path, route: rule.pattern, correlation_id: st.correlationId,
    });
  }

  /**
   * As the answer goes out (`onSend`), emit the turn's terminal event so that it is in the durable
   * outbox before the client has the whole answer (issue 11 item 7): at once for a buffered body
   * (before its first byte), at the end of a streamed body (before the response ends; see
   * turn-end.ts). On PostgreSQL the outbox stores in the background: `stored` is what a buffered
   * answer waits for before its first byte (a streamed one waits inside the pass-through stream).
   * @returns the payload to send (a pass-through stream for a streamed body), and `stored` (null: nothing to wait for).
   */
  sealBeforeSend(req: FastifyRequest, reply: FastifyReply, st: GatewayState, payload: unknown): { payload: unknown; stored: Promise<boolean> | null } {
    if (!st.turnId || !st.identity || st.turnEnd !== 'open') return { payload, stored: null };
    // A destroyed response: the client went away (the request itself is destroyed once read).
    if (!isStreamPayload(payload)) return { payload, stored: this.emitTerminal(st, reply.statusCode, reply.raw.destroyed) };
    st.turnEnd = 'streaming';
    return { payload: runAtStreamEnd(payload, reply.hasHeader('content-length'), () => this.emitTerminal(st, reply.statusCode, reply.raw.destroyed)), stored: null };
  }

  /**
   * Count the answer and, for a turn whose terminal event is still due (a streamed answer that
   * never ended, an answer that bypassed `onSend`), emit it now: `turn_failed` when the stream
   * broke off, else as `sealBeforeSend` would.
   */
  endTurn(req: FastifyRequest, reply: FastifyReply, st: GatewayState): void {
    const target = st.rule ? (st.rule.target.kind === 'proxy' ? st.rule.target.service : st.rule.target.handler) : 'none';
    this.counters.answered.inc({ status: String(reply.statusCode), target });
    if (st.turnEnd !== 'emitted') {
      // After the answer (onResponse): nothing is left to hold back; storing goes on in the background.
      void this.emitTerminal(st, reply.statusCode, st.turnEnd === 'streaming' || req.raw.destroyed && !reply.raw.writableFinished);
    }
  }

  /**
   * Emit `turn_sealed`, or `turn_failed` (a 5xx, or the answer did not reach the client whole), once
   * per turn, and commit it to the outbox with `turn_started` and whatever else is staged (one write).
   * @returns null when that write is already durable (SQLite), else a promise of it being stored (PostgreSQL).
   */
  private emitTerminal(st: GatewayState, status: number, incomplete: boolean): Promise<boolean> | null {
    if (!st.turnId || !st.identity || st.turnEnd === 'emitted' || st.turnEnd === 'deferred') return null;
    st.turnEnd = 'emitted';
    this.events.emit(st.turnId, st.identity.principal.id, incomplete || status >= 500 ? 'turn_failed' : 'turn_sealed', {
      status, duration_ms: Math.round((performance.now() - st.startedAt) * 1000) / 1000,
    });
    return this.events.commitDurable();
  }
}

async function limit(limiter: Limiter, req: FastifyRequest, scope: string): Promise<void> {
  const r = await limiter(req);
  if (!r.isAllowed && r.isExceeded) {
    const retry = String(Math.max(1, r.ttlInSeconds));
    throw refuse('rate_limited', `${scope} rate limit exceeded; retry in ${retry} s`, {
      'retry-after': retry, 'x-ratelimit-limit': String(r.max), 'x-ratelimit-remaining': '0',
    });
  }
}
