/**
 * `GET /v1/admin/topology` (issue 19 item 1): the services, their ports and transports, who calls
 * whom, and each one's health. The edges are the static call graph of docs/ARCHITECTURE.md and the
 * services' `clients/` (every hop HTTP/1.1 over loopback with a service token, SSE where streamed);
 * ports and health come from the supervisor's status at request time.
 */
import type { ServiceStatus } from '../../../shared/runtime.js';
import { GRPC_ROUTES } from './grpc-routes.js';
import { transportStats, type RouteTransportView } from './transport-stats.js';

/** One call edge. */
export interface TopologyEdge { from: string; to: string; transport: string; purpose: string }
/** One node. */
export interface TopologyNode {
  name: string; port: number; url: string; transport: string; state: string;
  healthy: boolean; readiness: string | null; restarts: number; uptime_seconds: number; last_error: string | null;
}
/** The answer. */
export interface Topology {
  nodes: TopologyNode[]; edges: TopologyEdge[];
  /** Issue 20: the split's gRPC routes and the transport each used (see domain/transport-stats.ts). */
  routes: RouteTransportView[];
}

const UPSTREAMS = ['agent-runtime', 'guardrail', 'memory', 'inference-router', 'sandbox', 'knowledge', 'audit', 'observability', 'auth', 'dirauth'];

/** The static call graph (issue 19 item 1). */
export const EDGES: readonly TopologyEdge[] = [
  ...UPSTREAMS.map((to) => ({ from: 'gateway', to, transport: 'http+sse', purpose: 'routes /v1 requests' })),
  // Issue 20: the split's routes over gRPC (HTTP fallback per route); turn events over a gRPC stream.
  ...GRPC_ROUTES.map((r) => ({ from: 'gateway', to: r.service, transport: 'grpc', purpose: r.label })),
  { from: 'gateway', to: 'audit', transport: 'grpc-stream', purpose: 'turn events (HTTP fallback)' },
  { from: 'agent-runtime', to: 'inference-router', transport: 'http+sse', purpose: 'completions' },
  { from: 'agent-runtime', to: 'guardrail', transport: 'http', purpose: 'input/output checks' },
  { from: 'agent-runtime', to: 'memory', transport: 'http', purpose: 'memories' },
  { from: 'agent-runtime', to: 'knowledge', transport: 'http', purpose: 'retrieval, connectors' },
  { from: 'agent-runtime', to: 'sandbox', transport: 'http', purpose: 'code execution' },
  { from: 'agent-runtime', to: 'audit', transport: 'http', purpose: 'receipts, artifacts' },
  { from: 'guardrail', to: 'inference-router', transport: 'http', purpose: 'classifier calls' },
  { from: 'guardrail', to: 'audit', transport: 'http', purpose: 'audit rows' },
  { from: 'memory', to: 'inference-router', transport: 'http', purpose: 'consolidation' },
  { from: 'memory', to: 'audit', transport: 'http', purpose: 'audit rows' },
  { from: 'inference-router', to: 'observability', transport: 'http', purpose: 'generations' },
  { from: 'inference-router', to: 'audit', transport: 'http', purpose: 'audit rows' },
  { from: 'knowledge', to: 'audit', transport: 'http', purpose: 'audit rows' },
  { from: 'knowledge', to: 'agent-runtime', transport: 'http', purpose: 'visibility checks' },
  { from: 'observability', to: 'agent-runtime', transport: 'http', purpose: 'turn lookups' },
  { from: 'sandbox', to: 'agent-runtime', transport: 'http', purpose: 'session callbacks' },
  { from: 'auth', to: 'dirauth', transport: 'http', purpose: 'directory sign-in' },
  { from: 'auth', to: 'audit', transport: 'http', purpose: 'audit rows' },
  { from: 'auth', to: 'agent-runtime', transport: 'http', purpose: 'user lifecycle' },
];

/** Nodes from the status list (`readiness` null = ready) plus the static edges among them. */
export function buildTopology(status: readonly ServiceStatus[]): Topology {
  const names = new Set(status.map((s) => s.name));
  return {
    nodes: status.map((s) => ({
      name: s.name, port: s.port, url: s.url, transport: s.name === 'gateway' ? 'http(s) + sse (public)' : 'http over loopback',
      state: s.state, healthy: s.state === 'ready' && (s.readiness ?? null) === null, readiness: s.readiness ?? null,
      restarts: s.restarts, uptime_seconds: s.uptime_seconds, last_error: s.last_error,
    })),
    edges: EDGES.filter((e) => names.has(e.from) && names.has(e.to)),
    routes: transportStats()?.view() ?? [],
  };
}
