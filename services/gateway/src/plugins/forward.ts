/**
 * Forwarding one admitted request to its owning service (spec: "What the service does" 2-5,
 * "Identity headers", "Errors"): inbound headers minus the stripped ones, plus the turn's stamped
 * identity (`x-user-*`, `x-tenant-id`, `X-Svc-Principal`, `X-Svc-Turn-Id`, `X-Svc-Cap-Token`) and
 * the gateway's `x-forwarded-*` and its signed `X-Svc-Client` hop stamp (the client address services
 * believe, issue 11 item 2); the answer comes back minus hop-by-hop headers, with the turn and
 * correlation ids. A service that cannot be reached answers 502 `{"error":"service unavailable"}`;
 * a client that went away aborts the upstream call. This is the gateway's hot path (bench/gateway.ts).
 * The transport split's routes (domain/grpc-routes.ts; issue 20) go over gRPC when the service runs a
 * gRPC server (clients/grpc-upstream.ts) and over HTTP when gRPC cannot carry them (not connected, no
 * server, or a body the service refuses itself); a request answered over gRPC is never sent again.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import type { UpstreamName } from '../../../shared/services.js';
import { callUpstream, BUFFER_LIMIT, type UpstreamPools, type UpstreamResponse } from '../clients/upstream.js';
import { CORRELATION_ID_HEADER, SERVICE_UNAVAILABLE_BODY, STRIP_INBOUND, STRIP_OUTBOUND, TURN_ID_HEADER } from '../contracts.js';
import { capabilityToken, type IdentitySettings } from '../domain/identity.js';
import { CLIENT_HOP_HEADER, ClientHopSigner } from '../../../shared/identity/client-hop.js';
import { installedServiceTokens } from '../../../shared/identity/service-token-dispatch.js';
import type { GrpcUpstream } from '../clients/grpc-upstream.js';
import { matchGrpcRoute } from '../domain/grpc-routes.js';
import type { TransportStats } from '../domain/transport-stats.js';

/**
 * The gRPC side of the transport split (issue 20 item 3): the channels, the per-route stats and the
 * counters. Absent: every route goes over HTTP (USE_GRPC=false).
 */
export interface GrpcHop {
  upstream: GrpcUpstream;
  stats: TransportStats;
  counters?: { transport: { inc(l: { route: string; transport: string }): void }; fallbacks: { inc(l: { route: string; reason: string }): void } };
}

/** Forwards admitted requests to the owning services over their pools. */
export class UpstreamProxy {
  /** Signs the `X-Svc-Client` hop stamp naming the client address (issue 11 item 2). */
  private readonly hop: ClientHopSigner;
  /** Streamed answers of endless routes in flight (`cutEndless`). */
  private readonly endless = new Set<ServerResponse>();

  /**
   * @param pools one kept-alive pool per service.
   * @param settings identity settings (the capability token of each turn is minted here).
   */
  /** The gRPC hop of the split's routes (issue 20), set by app.ts when USE_GRPC. */
  private grpcHop: GrpcHop | null = null;

  constructor(private readonly pools: UpstreamPools, private readonly settings: IdentitySettings) {
    this.hop = new ClientHopSigner(settings.principalKeys);
  }

  /** Route the split's routes over gRPC (`hop`), or all over HTTP (null). */
  useGrpc(hop: GrpcHop | null): void {
    this.grpcHop = hop;
  }

  /** The pool of `service`. */
  pool(service: UpstreamName): Dispatcher {
    return this.pools.get(service);
  }

  /**
   * The headers sent upstream for an admitted request (`req.gw` set by `gateway-admission`).
   * @param credentials keep the client's `Authorization` and `Cookie` (routes marked `credentials`).
   */
  headers(req: FastifyRequest, credentials = false): Record<string, string> {
    const st = req.gw!;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || (STRIP_INBOUND.has(k) && !(credentials && (k === 'authorization' || k === 'cookie')))) continue;
      headers[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    headers[CORRELATION_ID_HEADER] = st.correlationId;
    // Issue 15 item 4: the user's bearer (stripped above) is swapped for the gateway's service token;
    // when none is cached yet, the pool's interceptor waits for one (clients/upstream.ts).
    // Not on `credentials` routes (the embedded IdP): there the client's own Authorization goes through.
    const svcToken = credentials ? null : installedServiceTokens()?.peek();
    if (svcToken) headers.authorization = `Bearer ${svcToken}`;
    headers['x-forwarded-for'] = req.ip;
    // Services believe only this signed hop stamp, never x-forwarded-for (issue 11 item 2).
    const hop = this.hop.stamp(req.ip);
    if (hop !== null) headers[CLIENT_HOP_HEADER] = hop;
    headers['x-forwarded-proto'] = req.protocol;
    if (req.headers.host) headers['x-forwarded-host'] = req.headers.host;
    if (st.identity && st.turnId) {
      Object.assign(headers, st.identity.headers);
      headers['x-svc-principal'] = st.identity.stamp;
      headers[TURN_ID_HEADER] = st.turnId;
      headers['x-svc-cap-token'] = capabilityToken(st.identity.principal, st.turnId, this.settings);
    }
    return headers;
  }

  /**
   * Proxy `req` to `path` (plus the query string) on `service` and send the answer: buffered when
   * small, streamed otherwise. 502 with the spec body when the service cannot be reached or reset
   * the connection (also mid-body); 499 (nothing sent) only when the client went away first.
   * @param endless a streamed answer of this route never ends by itself: keep it for `cutEndless`.
   * @param credentials forward the client's `Authorization` and `Cookie` (RouteRule `credentials`).
   */
  async forward(req: FastifyRequest, reply: FastifyReply, service: UpstreamName, path: string, endless = false, credentials = false): Promise<FastifyReply> {
    const headers = this.headers(req, credentials);
    const query = req.url.indexOf('?');
    // Issue 20: the split's routes over gRPC; HTTP when gRPC cannot carry the request.
    const grpcMatch = credentials ? null : matchGrpcRoute(service, req.method, path);
    if (grpcMatch) {
      const g = this.grpcHop;
      const label = grpcMatch.route.label;
      if (g) {
        // A boolean, not the reply: a FastifyReply is thenable, and awaiting it would lose it.
        if (await this.viaGrpc(g, grpcMatch, req, reply, headers, query >= 0 ? req.url.slice(query + 1) : '')) return reply;
      } else this.count(null, label, 'http');
    }
    const call = callUpstream(this.pools.get(service), {
      method: req.method, path: query >= 0 ? path + req.url.slice(query) : path, headers, body: forwardedBody(req),
    }, BUFFER_LIMIT);
    // The response's 'close' before it finished means the client went away: abort upstream.
    // (`req.raw.destroyed` is no sign of that: a request stream is destroyed once its body was read,
    // which made every failed upstream call with a body answer an empty 499; issue 11 item 4.)
    let clientGone = false;
    const onClose = (): void => { if (!reply.raw.writableFinished) { clientGone = true; call.abort(); } };
    reply.raw.once('close', onClose);
    let res;
    try {
      res = await call.response;
    } catch (err) {
      reply.raw.off('close', onClose);
      if (clientGone) return reply.code(499).send();
      req.log.warn({ service, err: (err as Error).message }, 'upstream unavailable');
      return unavailable(reply);
    }
    if (Buffer.isBuffer(res.body)) reply.raw.off('close', onClose);
    else if (endless) this.track(reply.raw);
    return reply.code(res.statusCode).headers(answerHeaders(req, res)).send(res.body);
  }

  /** Count one answer of a split route over `transport` (metrics and topology). */
  private count(g: GrpcHop | null, route: string, transport: 'grpc' | 'http', fallbackReason?: string): void {
    const hop = g ?? this.grpcHop;
    hop?.stats.record(route, transport, fallbackReason !== undefined);
    hop?.counters?.transport.inc({ route, transport });
    if (fallbackReason) hop?.counters?.fallbacks.inc({ route, reason: fallbackReason });
  }

  /**
   * Try a split route over gRPC. @returns true when the answer was sent, false when the request must
   * go over HTTP (not delivered: no gRPC server, not connected, or a body the service should refuse itself).
   */
  private async viaGrpc(g: GrpcHop, match: NonNullable<ReturnType<typeof matchGrpcRoute>>, req: FastifyRequest, reply: FastifyReply, headers: Record<string, string>, query: string): Promise<boolean> {
    const label = match.route.label;
    const ac = new AbortController();
    let clientGone = false;
    const onClose = (): void => { if (!reply.raw.writableFinished) { clientGone = true; ac.abort(); } };
    reply.raw.once('close', onClose);
    const out = await g.upstream.call(match, headers, forwardedBody(req), query, ac.signal);
    reply.raw.off('close', onClose);
    if (out.kind === 'fallback') {
      // A service without a gRPC server (or USE_GRPC=false) is plain HTTP, not a fallback.
      this.count(g, label, 'http', out.reason === 'no_channel' ? undefined : out.reason);
      return false;
    }
    if (clientGone) { void reply.code(499).send(); return true; }
    if (out.kind === 'broken') {
      // It may have been delivered: never sent again (no double write); the HTTP path's answer to a reset.
      req.log.warn({ route: label, err: out.message }, 'upstream gRPC call broke');
      this.count(g, label, 'grpc');
      void unavailable(reply);
      return true;
    }
    this.count(g, label, 'grpc');
    const st = req.gw!;
    const h: Record<string, string> = { ...out.headers, 'content-type': 'application/json; charset=utf-8' };
    if (st.turnId) h[TURN_ID_HEADER] = st.turnId;
    h[CORRELATION_ID_HEADER] = st.correlationId;
    void reply.code(out.status).headers(h).send(out.body);
    return true;
  }

  /**
   * Cut every streamed answer of an `endless` route (the phone's device channel, issue 14): at
   * shutdown the gateway would otherwise wait for streams that end only when the client's proof
   * expires. The client sees the stream break and reconnects. @returns how many were cut.
   */
  cutEndless(): number {
    const n = this.endless.size;
    for (const raw of this.endless) raw.destroy();
    this.endless.clear();
    return n;
  }

  private track(raw: ServerResponse): void {
    this.endless.add(raw);
    raw.once('close', () => this.endless.delete(raw));
  }

  /**
   * Send `req` to `path` on `service` as `forward` does, but return the answer, whole, instead of
   * sending it: for gateway-owned answers that read what the service said (the password login,
   * issue 14 item 3). Answers are small; one larger than `maxBytes` counts as unreachable.
   * @returns the status, the headers to pass back (hop-by-hop ones removed, turn and correlation ids
   *   added) and the body; null when the service cannot be reached (answer with `unavailable`).
   */
  async exchange(req: FastifyRequest, service: UpstreamName, path: string, maxBytes = 1024 * 1024): Promise<BufferedAnswer | null> {
    const query = req.url.indexOf('?');
    const call = callUpstream(this.pools.get(service), {
      method: req.method, path: query >= 0 ? path + req.url.slice(query) : path, headers: this.headers(req), body: forwardedBody(req),
    }, Math.min(BUFFER_LIMIT, maxBytes));
    try {
      const res = await call.response;
      const body = Buffer.isBuffer(res.body) ? res.body : await collect(res.body, maxBytes);
      return { statusCode: res.statusCode, headers: answerHeaders(req, res), body };
    } catch (err) {
      req.log.warn({ service, err: (err as Error).message }, 'upstream unavailable');
      return null;
    }
  }
}

/** A service's whole answer, as `UpstreamProxy.exchange` returns it. */
export interface BufferedAnswer {
  statusCode: number;
  /** Headers to pass back to the client (hop-by-hop removed, turn and correlation ids added). */
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** Send the spec's 502 `{"error":"service unavailable"}` (a service could not be reached). */
export function unavailable(reply: FastifyReply): FastifyReply {
  return reply.code(502).type('application/json').send(SERVICE_UNAVAILABLE_BODY);
}

/** The upstream answer's headers minus hop-by-hop ones, plus the turn and correlation ids. */
function answerHeaders(req: FastifyRequest, res: UpstreamResponse): Record<string, string | string[]> {
  const st = req.gw!;
  const out: Record<string, string | string[]> = {};
  for (const k in res.headers) {
    const v = res.headers[k];
    if (v === undefined || STRIP_OUTBOUND.has(k)) continue;
    out[k] = v;
  }
  if (st.turnId) out[TURN_ID_HEADER] = st.turnId;
  out[CORRELATION_ID_HEADER] = st.correlationId;
  return out;
}

/** Read a streamed answer whole. @throws Error past `maxBytes`. */
async function collect(stream: AsyncIterable<Buffer>, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    size += c.length;
    if (size > maxBytes) throw new Error(`upstream answer exceeds ${maxBytes} bytes`);
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

/** The request body to forward: the buffered bytes, or nothing when empty. */
export function forwardedBody(req: FastifyRequest): Buffer | undefined {
  return req.body instanceof Buffer && req.body.length > 0 ? req.body : undefined;
}
