/**
 * The one cached service stamp (spec: "Service-to-service"; issue 10 "one cached service stamp").
 *
 * A service calling another service directly (not through the gateway) sends
 * `X-Svc-Principal` of its service principal `service:<name>`. Signing is cheap but not free, so
 * the stamp is cached and re-signed a minute before it expires (stamps live 5 minutes).
 */
import { servicePrincipal, signStamp } from './principal.js';

/** Re-sign when fewer than this many seconds of validity remain. */
const RESIGN_MARGIN_SECONDS = 60;

/**
 * A function returning a valid `X-Svc-Principal` value for `service:<service>` in `tenantId`,
 * signed with the newest of `keys`.
 * @param clock current time, Unix seconds (test seam).
 */
export function serviceStamp(service: string, tenantId: string, keys: readonly string[], clock: () => number = () => Math.floor(Date.now() / 1000)): () => string {
  let cached: { value: string; exp: number } | null = null;
  return () => {
    const now = clock();
    if (!cached || cached.exp - now < RESIGN_MARGIN_SECONDS) {
      const p = servicePrincipal(service, tenantId, now);
      cached = { value: signStamp(p, keys), exp: p.exp };
    }
    return cached.value;
  };
}
