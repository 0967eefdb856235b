/**
 * gRPC settings (issue 20; spec "What the service does" 5: gRPC from gateway to services is the
 * default, `USE_GRPC=true`, with per-route HTTP fallback; a service's gRPC port is its HTTP port + 1000).
 *
 * - `USE_GRPC` (default true): the gateway's split routes and the turn-event publishers use gRPC;
 *   `false` keeps every hop HTTP (the gRPC servers still run, so a peer may use them).
 * - `SVC_<SERVICE>_GRPC=false` turns one service's gRPC server off (its peers reach it over HTTP).
 * - `SVC_<SERVICE>_GRPC_PORT` moves its gRPC port; default HTTP port + 1000, or a free port when the
 *   HTTP port is 0 (the supervisor resolves it, `resolveGrpcPorts`).
 */
import { GRPC_SERVICES, SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';
import { bool, int, type Env } from './env.js';

/** The stack's gRPC settings, before ports are resolved. */
export interface GrpcSettings {
  useGrpc: boolean;
  /** Services that run a gRPC server (the spec's gRPC services minus those turned off). */
  enabled: ServiceName[];
  /** Requested gRPC ports; 0 = HTTP port + 1000 when that is fixed, else a free one. */
  ports: Partial<Record<ServiceName, number>>;
}

/** `SVC_<SERVICE>_GRPC` for `name`. */
export function grpcEnvName(name: ServiceName): string {
  return `SVC_${name.toUpperCase().replace(/-/g, '_')}_GRPC`;
}

/** Read USE_GRPC, SVC_<SERVICE>_GRPC and SVC_<SERVICE>_GRPC_PORT. */
export function readGrpcSettings(env: Env): GrpcSettings {
  const enabled = SERVICE_NAMES.filter((n) => GRPC_SERVICES.has(n) && bool(env, grpcEnvName(n), true));
  const ports: Partial<Record<ServiceName, number>> = {};
  for (const n of enabled) ports[n] = int(env, `${grpcEnvName(n)}_PORT`, 0, 0, 65535);
  return { useGrpc: bool(env, 'USE_GRPC', true), enabled, ports };
}

/**
 * Resolve the gRPC ports: the requested one, else HTTP port + 1000 when the HTTP port was fixed
 * (`requested[name] > 0`), else `pick()` (a free port; tests run on ephemeral ports).
 */
export async function resolveGrpcPorts(g: Readonly<GrpcSettings>, requested: Readonly<Record<ServiceName, number>>, actual: Readonly<Record<ServiceName, number>>, pick: () => Promise<number>): Promise<Partial<Record<ServiceName, number>>> {
  const out: Partial<Record<ServiceName, number>> = {};
  for (const n of g.enabled) out[n] = g.ports[n] || (requested[n] > 0 ? actual[n] + 1000 : await pick());
  return out;
}

/**
 * The gRPC fields of `service`'s slice: its own port (null = none), every peer's `host:port`, USE_GRPC.
 * A service another process runs (`peerUrls`, issue 21) is reached at its URL's host, HTTP port + 1000
 * (spec rule 5); when nothing answers there, callers fall back to HTTP.
 */
export function grpcFields(g: Readonly<GrpcSettings>, service: ServiceName, internalHost: string, grpcPorts: Partial<Record<ServiceName, number>>, peerUrls: Partial<Record<ServiceName, string>> = {}): { grpcPort: number | null; grpcUrls: Partial<Record<ServiceName, string>>; useGrpc: boolean } {
  const grpcUrls: Partial<Record<ServiceName, string>> = {};
  for (const n of g.enabled) {
    const peer = peerUrls[n];
    if (peer) {
      try {
        const u = new URL(peer);
        const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80)) + 1000;
        if (port <= 65535) grpcUrls[n] = `${u.hostname}:${port}`;
      } catch { /* not a URL: HTTP only */ }
    } else if (grpcPorts[n]) grpcUrls[n] = `${internalHost}:${grpcPorts[n]}`;
  }
  return { grpcPort: g.enabled.includes(service) ? grpcPorts[service] ?? 0 : null, grpcUrls, useGrpc: g.useGrpc };
}
