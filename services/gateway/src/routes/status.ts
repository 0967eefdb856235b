/**
 * The `gateway-status` plugin: `GET /v1/admin/status` and `GET /v1/admin/services` (admin only; the
 * admission chain's admin guard ran before), the state of every service (DESIGN.md "Process model
 * and ports": "reports each service on /v1/admin/status").
 *
 * Answers `GatewayStatus` `{tenant_id, auth_enabled, services}`: the supervisor's snapshot when one
 * runs the stack, else each service's `/readyz` probed directly. Either way each service carries
 * `readiness`: null when its `/readyz` answers 200, else the reason it gives, which names the fix
 * where the service knows one (issue 12 item 8: the sandbox without Docker or its image).
 */
import fp from 'fastify-plugin';
import type { ServiceStatus } from '../../../shared/runtime.js';
import type { ServiceName } from '../../../shared/services.js';
import { probeReadiness, probeServices } from '../clients/status-probe.js';
import type { GatewayStatus } from '../contracts.js';

/** Options of the `gateway-status` plugin. */
export interface StatusPluginOptions {
  tenantId: string;
  authEnabled: boolean;
  /** Base URL of every service (probed when there is no snapshot). */
  serviceUrls: Readonly<Record<ServiceName, string>>;
  /** The supervisor's latest status of every service, when one runs the stack. */
  statusSnapshot?: (() => ServiceStatus[]) | undefined;
}

/** Register the `status` local target. */
export const statusPlugin = fp<StatusPluginOptions>(async (app, opts) => {
  app.gatewayTargets.handle('status', async (): Promise<GatewayStatus> => {
    const snapshot = opts.statusSnapshot?.();
    const services = snapshot
      ? await Promise.all(snapshot.map(async (s) => ({
        ...s, readiness: s.state === 'ready' && s.name !== 'gateway' ? await probeReadiness(opts.serviceUrls[s.name as ServiceName] ?? s.url) : null,
      })))
      : await probeServices(opts.serviceUrls);
    return { tenant_id: opts.tenantId, auth_enabled: opts.authEnabled, services };
  });
}, { name: 'gateway-status', fastify: '5.x', dependencies: ['gateway-proxy'], encapsulate: true });
