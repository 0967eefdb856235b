/**
 * Wiring of upstream SSO brokering in the auth service (issue 15 item 2): the sealing key
 * (`<dataDir>/secrets/upstream-sso.key`), the outbound-guarded undici agent for every fetch to an
 * admin-supplied issuer, the openid-client adapter and the `UpstreamBroker`.
 */
import { join } from 'node:path';
import type { AuthConfig } from '../../../shared/config.js';
import { createOutboundAgent } from '../../../shared/http/outbound-agent.js';
import { workstationEndpoints } from '../../../shared/http/outbound.js';
import { OpenIdUpstreamClient } from '../clients/upstream-oidc.js';
import { UpstreamBroker } from '../domain/upstream-broker.js';
import type { AuthStore } from '../store/auth-store.js';
import { AesGcmSealer, UPSTREAM_SSO_KEY_FILE, loadOrCreateUpstreamKey } from '../store/upstream-secret-key.js';

/** Timeout of each request to an upstream IdP, seconds. */
const UPSTREAM_TIMEOUT_SECONDS = 10;

/** What `startUpstreamSso` answers. */
export interface UpstreamSso {
  broker: UpstreamBroker;
  /** Prune expired broker states every `ms`; @returns the stopper (for `background`). */
  pruneEvery(ms: number): () => void;
}

/**
 * Build the broker over the auth store.
 * @param opts the service config, its store, clock (unix ms) and `onClose` (closes the agent).
 */
export function startUpstreamSso(opts: { cfg: AuthConfig; store: AuthStore; clock: () => number; onClose: (fn: () => void | Promise<void>) => void }): UpstreamSso {
  const { cfg, store, clock } = opts;
  const own = workstationEndpoints(cfg);
  const dispatcher = createOutboundAgent({ own }, { connectTimeout: UPSTREAM_TIMEOUT_SECONDS * 1000, headersTimeout: UPSTREAM_TIMEOUT_SECONDS * 1000, bodyTimeout: UPSTREAM_TIMEOUT_SECONDS * 1000 });
  opts.onClose(() => dispatcher.close());
  const sealer = new AesGcmSealer(loadOrCreateUpstreamKey(join(cfg.dataDir, 'secrets', UPSTREAM_SSO_KEY_FILE)));
  const broker = new UpstreamBroker({
    idps: store.upstreamIdps, links: store.upstreamLinks, states: store.brokerStates, users: store.users,
    oidc: new OpenIdUpstreamClient({ dispatcher, policy: { own }, timeoutSeconds: UPSTREAM_TIMEOUT_SECONDS }),
    sealer, tx: store.txAsync, clock, publicUrl: cfg.publicUrl.replace(/\/+$/, ''), groupRoleMap: cfg.groupRoleMap ?? {},
  });
  return {
    broker,
    pruneEvery(ms) {
      const timer = setInterval(() => { broker.prune(clock()).catch(() => { /* next round */ }); }, ms);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
