/**
 * The table of services of the spec ("What the service does" > "Services").
 *
 * Each entry names a service, its default HTTP port on 127.0.0.1 and the environment
 * variable that overrides it (`SVC_<SERVICE>_PORT`). The gRPC port, where one exists, is
 * the HTTP port + 1000 (spec rule 5).
 */
export const SERVICE_NAMES = [
  'gateway',
  'agent-runtime',
  'guardrail',
  'memory',
  'inference-router',
  'sandbox',
  'knowledge',
  'audit',
  'observability',
  'dirauth',
  'auth',
] as const;

/** One of the eleven services of the spec's table. */
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** Services other than the gateway: the ones the gateway proxies to. */
export type UpstreamName = Exclude<ServiceName, 'gateway'>;

/** Default HTTP ports, from the spec's service table. */
export const DEFAULT_PORTS: Readonly<Record<ServiceName, number>> = Object.freeze({
  gateway: 8080,
  'agent-runtime': 8001,
  guardrail: 8002,
  memory: 8003,
  'inference-router': 8004,
  sandbox: 8006,
  knowledge: 8007,
  audit: 8008,
  observability: 8009,
  dirauth: 8010,
  auth: 8012,
});

/** Services with a gRPC port (HTTP port + 1000); the router, observability, dirauth and auth have none. */
export const GRPC_SERVICES: ReadonlySet<ServiceName> = new Set<ServiceName>([
  'agent-runtime', 'guardrail', 'memory', 'sandbox', 'knowledge', 'audit',
]);

/**
 * Name of the environment variable that overrides a service's port,
 * e.g. `agent-runtime` -> `SVC_AGENT_RUNTIME_PORT`.
 */
export function portEnvName(name: ServiceName): string {
  return `SVC_${name.toUpperCase().replace(/-/g, '_')}_PORT`;
}
