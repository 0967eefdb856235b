/**
 * Which transport each route of the split used (issue 20 item 3: "`/v1/admin/topology` and the
 * metrics say which transport each route used"): per route, the configured transport, the count of
 * answers per transport, HTTP fallbacks and the last transport used. One instance per gateway.
 */
import { GRPC_ROUTES } from './grpc-routes.js';

/** Row name of the gateway's turn-event batches (svc.v1.Audit/PublishTurnEvents, else POST /v1/turns/events). */
export const TURN_EVENTS_ROUTE = 'turn events';

/** One route's view in the topology answer. */
export interface RouteTransportView {
  route: string;
  service: string;
  /** `grpc` when USE_GRPC and the service has a gRPC server, else `http`. */
  configured: 'grpc' | 'http';
  /** The transport of the last answer, null before any. */
  last: 'grpc' | 'http' | null;
  grpc: number;
  http: number;
  /** Requests that went over HTTP because gRPC could not carry them (not connected, or a body left to the service's own refusal). */
  fallbacks: number;
}

/** The counters behind `RouteTransportView`. */
export class TransportStats {
  private readonly rows = new Map<string, RouteTransportView>();

  /** @param grpcFor whether a service is reached over gRPC. */
  constructor(grpcFor: (service: string) => boolean) {
    for (const r of GRPC_ROUTES) {
      this.rows.set(r.label, { route: r.label, service: r.service, configured: grpcFor(r.service) ? 'grpc' : 'http', last: null, grpc: 0, http: 0, fallbacks: 0 });
    }
    // The gateway's turn-event batches to audit (a gRPC stream, HTTP fallback); counts are batches.
    this.rows.set(TURN_EVENTS_ROUTE, { route: TURN_EVENTS_ROUTE, service: 'audit', configured: grpcFor('audit') ? 'grpc' : 'http', last: null, grpc: 0, http: 0, fallbacks: 0 });
  }

  /** Count one answer of `route` over `transport`. */
  record(route: string, transport: 'grpc' | 'http', fallback = false): void {
    const row = this.rows.get(route);
    if (!row) return;
    row[transport]++;
    row.last = transport;
    if (fallback) row.fallbacks++;
  }

  /** Every route of the split. */
  view(): RouteTransportView[] {
    return [...this.rows.values()].map((r) => ({ ...r }));
  }
}

let current: TransportStats | null = null;
/** Install the gateway's stats (app.ts) so the topology answer can read them. */
export function installTransportStats(s: TransportStats): void { current = s; }
/** The installed stats, or null (no gateway in this thread). */
export function transportStats(): TransportStats | null { return current; }
