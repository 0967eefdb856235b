/**
 * The routes of the spec's "Transport split (gateway to service)" that travel over gRPC (issue 20):
 * memory store, guard input and output, wiki upsert and get, audit append. Each row names the proto
 * service and rpc (proto/svc/v1/*.proto), the HTTP route it mirrors and the route's schemas, taken
 * from the owning service's `contracts.ts`, the same schemas its HTTP route and gRPC adapter use.
 * Every other route stays HTTP.
 */
import type { UpstreamName } from '../../../shared/services.js';
import type { SchemaNode } from '../../../shared/grpc/schema-codec.js';
import { StoreRequestSchema, StoreResultSchema } from '../../../memory/src/contracts.js';
import { GuardInputRequestSchema, GuardOutputRequestSchema, GuardResultSchema } from '../../../guardrail/src/contracts.js';
import { TenantQuerySchema, TopicParamsSchema, WikiPageSchema, WikiWriteRequestSchema } from '../../../knowledge/src/contracts.js';
import { AuditAppendRequestSchema, AuditAppendResponseSchema } from '../../../audit/src/contracts.js';

/** One gRPC route of the split. */
export interface GrpcRoute {
  /** Owning service. */
  service: UpstreamName;
  /** Proto service name in package `svc.v1`. */
  protoService: string;
  rpc: string;
  /** Proto file (under proto/), request and response message names. */
  file: string;
  requestMessage: string;
  responseMessage: string;
  method: 'GET' | 'POST';
  /** The HTTP route (`{x}` one path segment). */
  pattern: string;
  params?: SchemaNode;
  querystring?: SchemaNode;
  body?: SchemaNode;
  response: SchemaNode;
  /** Safe to send again over HTTP when a gRPC call broke after it may have been delivered (reads only). */
  idempotent: boolean;
  /** Route label in metrics and topology. */
  label: string;
}

const S = (x: unknown): SchemaNode => x as SchemaNode;

/** The gRPC routes of the split. */
export const GRPC_ROUTES: readonly GrpcRoute[] = [
  {
    service: 'memory', protoService: 'Memory', rpc: 'Store', file: 'svc/v1/memory.proto', requestMessage: 'StoreRequest', responseMessage: 'StoreResult',
    method: 'POST', pattern: '/v1/memory', body: S(StoreRequestSchema), response: S(StoreResultSchema), idempotent: false, label: 'POST /v1/memory',
  },
  {
    service: 'guardrail', protoService: 'Guard', rpc: 'CheckInput', file: 'svc/v1/guard.proto', requestMessage: 'GuardInputRequest', responseMessage: 'GuardResult',
    method: 'POST', pattern: '/v1/guard/input', body: S(GuardInputRequestSchema), response: S(GuardResultSchema), idempotent: false, label: 'POST /v1/guard/input',
  },
  {
    service: 'guardrail', protoService: 'Guard', rpc: 'CheckOutput', file: 'svc/v1/guard.proto', requestMessage: 'GuardOutputRequest', responseMessage: 'GuardResult',
    method: 'POST', pattern: '/v1/guard/output', body: S(GuardOutputRequestSchema), response: S(GuardResultSchema), idempotent: false, label: 'POST /v1/guard/output',
  },
  {
    service: 'knowledge', protoService: 'Wiki', rpc: 'Upsert', file: 'svc/v1/wiki.proto', requestMessage: 'WikiWriteRequest', responseMessage: 'WikiPage',
    method: 'POST', pattern: '/v1/knowledge/wiki', body: S(WikiWriteRequestSchema), response: S(WikiPageSchema), idempotent: false, label: 'POST /v1/knowledge/wiki',
  },
  {
    service: 'knowledge', protoService: 'Wiki', rpc: 'Get', file: 'svc/v1/wiki.proto', requestMessage: 'WikiGetRequest', responseMessage: 'WikiPage',
    method: 'GET', pattern: '/v1/knowledge/wiki/{topic}', params: S(TopicParamsSchema), querystring: S(TenantQuerySchema), response: S(WikiPageSchema),
    idempotent: true, label: 'GET /v1/knowledge/wiki/{topic}',
  },
  {
    service: 'audit', protoService: 'Audit', rpc: 'Append', file: 'svc/v1/audit.proto', requestMessage: 'AuditAppendRequest', responseMessage: 'AuditAppendResponse',
    method: 'POST', pattern: '/v1/audit', body: S(AuditAppendRequestSchema), response: S(AuditAppendResponseSchema), idempotent: false, label: 'POST /v1/audit',
  },
];

/** A matched gRPC route with its path parameters. */
export interface GrpcMatch { route: GrpcRoute; params: Record<string, string> }

const compiled = GRPC_ROUTES.map((route) => {
  const names: string[] = [];
  const src = route.pattern.split('/').map((seg) => {
    const m = /^\{([a-z_]+)\}$/.exec(seg);
    if (m) { names.push(m[1]!); return '([^/]+)'; }
    return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }).join('/');
  return { route, re: new RegExp(`^${src}$`), names };
});

/**
 * The gRPC route of `method` + `path` (the path the owning service receives, no query), or null
 * (the route stays HTTP). A path parameter that is not valid percent-encoding is left to HTTP.
 */
export function matchGrpcRoute(service: UpstreamName, method: string, path: string): GrpcMatch | null {
  for (const c of compiled) {
    if (c.route.service !== service || c.route.method !== method) continue;
    const m = c.re.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    try {
      c.names.forEach((n, i) => { params[n] = decodeURIComponent(m[i + 1]!); });
    } catch { return null; }
    return { route: c.route, params };
  }
  return null;
}
