/**
 * The gateway's gRPC hop for the split's routes (issue 20 item 3; spec "Transport split"): one
 * channel per service with a gRPC server (`cfg.grpcUrls`), unary calls carrying the JSON body as its
 * proto message and the HTTP hop's headers as metadata (services/shared/grpc/wire.ts), answers
 * turned back into the exact bytes the HTTP route answers: the body re-serialised with fastify's
 * serializer and the route's response schema, error bodies verbatim from the trailers.
 *
 * `call` never throws; it answers `fallback` when the request was not delivered (no connection could
 * be established, or the body is one the service should refuse itself: the HTTP hop then answers
 * exactly what the service says) and `broken` when a call failed after it may have been delivered.
 */
import * as grpc from '@grpc/grpc-js';
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { ServiceName, UpstreamName } from '../../../shared/services.js';
import { svcV1 } from '../../../shared/grpc/proto.js';
import { fromMessage, mergeSchemas, toMessage, type SchemaNode } from '../../../shared/grpc/schema-codec.js';
import { HEADER_TO_METADATA, NOT_METADATA, TR_ERROR_BODY, TR_ERROR_HEADERS, TR_HTTP_STATUS } from '../../../shared/grpc/wire.js';
import { jsonTooDeep } from '../../../shared/kit/json-depth.js';
import type { GrpcMatch, GrpcRoute } from '../domain/grpc-routes.js';

/** What a gRPC attempt gave. */
export type GrpcOutcome =
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: string }
  | { kind: 'fallback'; reason: 'no_channel' | 'not_connected' | 'not_representable' }
  | { kind: 'broken'; message: string };

type ValidatorFn = (data: unknown) => boolean;
const buildValidator = AjvCompiler()({}, {
  customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false, allowUnionTypes: true },
  plugins: [],
} as never) as unknown as (o: { schema: unknown; method: string; url: string; httpPart: string }) => ValidatorFn;
const buildSerializer = SerializerSelector()({}, {}) as unknown as (o: { schema: unknown; method: string; url: string; httpStatus: string }) => (v: unknown) => string;

interface Prepared {
  route: GrpcRoute;
  request: SchemaNode;
  validators: Array<{ part: 'params' | 'querystring' | 'body'; validate: ValidatorFn }>;
  serialize: (v: unknown) => string;
}

/** Channels and per-route codecs of the gateway's gRPC hop. */
export class GrpcUpstream {
  private readonly clients = new Map<UpstreamName, grpc.Client>();
  private readonly prepared = new Map<GrpcRoute, Prepared>();

  /** @param urls `host:port` of each service's gRPC server (services without one are reached over HTTP). */
  constructor(private readonly urls: Partial<Record<ServiceName, string>>) {}

  /** True when `service` has a gRPC address. */
  has(service: UpstreamName): boolean { return Boolean(this.urls[service]); }

  private client(route: GrpcRoute): grpc.Client | null {
    let c = this.clients.get(route.service);
    if (c) return c;
    const addr = this.urls[route.service];
    if (!addr) return null;
    const Ctor = svcV1()[route.protoService]!;
    c = new Ctor(addr, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
      // No channelz statistics on the hot path. Retries stay on: grpc-js then sends again, by itself,
      // only a call the server refused unread (REFUSED_STREAM while it shuts down).
      'grpc.enable_channelz': 0,
      // Reconnect quickly once a stopped server is back.
      'grpc.initial_reconnect_backoff_ms': 200, 'grpc.max_reconnect_backoff_ms': 2000,
    });
    this.clients.set(route.service, c);
    return c;
  }

  private prep(route: GrpcRoute): Prepared {
    let p = this.prepared.get(route);
    if (!p) {
      const url = route.pattern.replace(/\{([a-z_]+)\}/g, ':$1');
      const validators = (['params', 'body', 'querystring'] as const).filter((x) => route[x]).map((part) => ({
        part, validate: buildValidator({ schema: route[part], method: route.method, url, httpPart: part }),
      }));
      p = { route, request: mergeSchemas(route.params, route.querystring, route.body), validators, serialize: buildSerializer({ schema: route.response, method: route.method, url, httpStatus: '200' }) };
      this.prepared.set(route, p);
    }
    return p;
  }

  /**
   * Call the route's rpc for an admitted request. `headers` are the HTTP hop's headers
   * (UpstreamProxy.headers), `rawBody` the buffered body, `query` the query string without `?`.
   */
  async call(match: GrpcMatch, headers: Record<string, string>, rawBody: Buffer | undefined, query: string, signal: AbortSignal): Promise<GrpcOutcome> {
    const client = this.client(match.route);
    if (!client) return { kind: 'fallback', reason: 'no_channel' };
    const p = this.prep(match.route);
    const json = requestJson(p, match, headers, rawBody, query);
    if (!json) return { kind: 'fallback', reason: 'not_representable' };
    const md = new grpc.Metadata();
    for (const [k, v] of Object.entries(headers)) {
      if (NOT_METADATA.has(k) || k.startsWith(':') || k.startsWith('grpc-')) continue;
      md.set(HEADER_TO_METADATA[k] ?? k, v);
    }
    const message = toMessage(p.request, json);
    return new Promise<GrpcOutcome>((resolve) => {
      // grpc-js calls back before it emits 'status' (which carries the trailers): answer when both came.
      let result: { err: grpc.ServiceError | null; value: Buffer | undefined } | null = null;
      let trailers: grpc.Metadata | null = null;
      const settle = (): void => {
        if (!result || !trailers) return;
        signal.removeEventListener('abort', onAbort);
        if (result.err) { resolve(errorOutcome(result.err, match.route)); return; }
        const status = Number(trailers.get(TR_HTTP_STATUS)[0] ?? 200);
        try {
          resolve({ kind: 'answer', status, headers: {}, body: p.serialize(fromMessage(match.route.response, decodeResponse(match.route, result.value!))) });
        } catch (e) { resolve({ kind: 'broken', message: (e as Error).message }); }
      };
      const call = client.makeUnaryRequest(
        `/svc.v1.${match.route.protoService}/${match.route.rpc}`,
        methodDef(match.route).requestSerialize as (v: Record<string, unknown>) => Buffer, (b: Buffer) => b,
        message, md, { deadline: Date.now() + 120_000 },
        (err: grpc.ServiceError | null, value?: Buffer) => { result = { err, value }; settle(); },
      );
      call.on('status', (st: grpc.StatusObject) => { trailers = st.metadata; settle(); });
      const onAbort = (): void => call.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Close every channel. */
  close(): void {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}

/** The request as one JSON object (params, query, body), validated and coerced as the service would; null = leave it to HTTP. */
function requestJson(p: Prepared, match: GrpcMatch, headers: Record<string, string>, rawBody: Buffer | undefined, query: string): Record<string, unknown> | null {
  const parts: Record<string, Record<string, unknown>> = { params: { ...match.params }, querystring: {}, body: {} };
  if (p.route.querystring) {
    const q = new URLSearchParams(query);
    for (const k of new Set(q.keys())) {
      const all = q.getAll(k);
      if (all.length !== 1) return null;
      parts['querystring']![k] = all[0]!;
    }
  } else if (query) return null;
  if (p.route.body) {
    const ct = (headers['content-type'] ?? '').toLowerCase();
    if (!/^application\/json\s*(;|$)/.test(ct) || !rawBody || rawBody.length === 0) return null;
    const text = rawBody.toString('utf8');
    // Prototype-poisoning keys and too-deep JSON get the service's own refusal over HTTP.
    if (text.includes('"__proto__"') || text.includes('"constructor"') || jsonTooDeep(text)) return null;
    let body: unknown;
    try { body = JSON.parse(text); } catch { return null; }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
    parts['body'] = body as Record<string, unknown>;
  } else if (rawBody && rawBody.length > 0) return null;
  for (const v of p.validators) if (!v.validate(parts[v.part])) return null;
  return { ...parts['params'], ...parts['querystring'], ...parts['body'] };
}

/** What a failed call means: the service's error answer (trailers), not delivered, or broken after delivery. */
function errorOutcome(err: grpc.ServiceError, route: GrpcRoute): GrpcOutcome {
  const md = err.metadata;
  const status = md?.get(TR_HTTP_STATUS)[0];
  if (status !== undefined) {
    const body = md.get(TR_ERROR_BODY)[0];
    const extra = md.get(TR_ERROR_HEADERS)[0];
    const headers = extra ? JSON.parse(Buffer.from(extra as Buffer).toString('utf8')) as Record<string, string> : {};
    return { kind: 'answer', status: Number(status), headers, body: body ? Buffer.from(body as Buffer).toString('utf8') : '{}' };
  }
  // Not delivered: no connection, or a stream the server refused unread (HTTP/2 REFUSED_STREAM).
  if (err.code === grpc.status.UNAVAILABLE && /No connection established|ECONNREFUSED|Stream refused/i.test(err.details ?? '')) {
    return { kind: 'fallback', reason: 'not_connected' };
  }
  // Reads may be sent again; a write may have happened: no second try.
  if (route.idempotent && (err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.CANCELLED)) return { kind: 'fallback', reason: 'not_connected' };
  return { kind: 'broken', message: `${grpc.status[err.code] ?? err.code}: ${err.details}` };
}

/** The proto-loader method definition of the route's rpc (its serializer and deserializer). */
function methodDef(route: GrpcRoute): grpc.MethodDefinition<object, object> {
  return svcV1()[route.protoService]!.service[route.rpc]! as grpc.MethodDefinition<object, object>;
}

/** Decode the response bytes with the route's message type. */
function decodeResponse(route: GrpcRoute, b: Buffer): Record<string, unknown> {
  return methodDef(route).responseDeserialize(b) as Record<string, unknown>;
}
