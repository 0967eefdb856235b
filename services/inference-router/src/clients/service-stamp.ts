/**
 * A cached service principal stamp for the router's own calls to other services.
 */
import { servicePrincipal, signStamp } from '../../../shared/identity/principal.js';

/** Returns a valid `X-Svc-Principal` of `service:inference-router`, re-signed a minute before expiry. */
export function serviceStamp(tenantId: string, keys: readonly string[]): () => string {
  let cached: { value: string; exp: number } | null = null;
  return () => {
    const now = Math.floor(Date.now() / 1000);
    if (!cached || cached.exp - now < 60) {
      const p = servicePrincipal('inference-router', tenantId, now);
      cached = { value: signStamp(p, keys), exp: p.exp };
    }
    return cached.value;
  };
}
