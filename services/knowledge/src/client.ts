/**
 * THE typed HTTP client other services use to call the knowledge service's internal routes
 * (DESIGN.md: a service imports another only through its `contracts.ts`, `client.ts` or `index.ts`).
 *
 * `KnowledgeAccessClient` (issue 13 item 8): the agent runtime pushes the tenant's permission
 * profiles (`PUT /v1/internal/knowledge/access-profiles`) with its service principal.
 */
import { request } from 'undici';
import { serviceStamp } from '../../shared/identity/service-stamp.js';
import type { AccessProfileInput, AccessProfilesSynced } from './contracts.js';

export type { AccessProfileInput, AccessProfilesSynced } from './contracts.js';

/** Options of `KnowledgeAccessClient`. */
export interface KnowledgeAccessClientOptions {
  /** The knowledge service's base URL (`cfg.serviceUrls.knowledge`). */
  baseUrl: string;
  /** Tenant of the service stamp. */
  tenantId: string;
  /** HMAC keys of X-Svc-Principal, newest first. */
  principalKeys: readonly string[];
  /** Deadline of one push, ms (default 5000). */
  timeoutMs?: number;
}

/** A refused or failed push: `status` 0 when the service did not answer. */
export class KnowledgeAccessError extends Error {
  constructor(message: string, readonly status: number, readonly code: string) {
    super(message);
    this.name = 'KnowledgeAccessError';
  }
}

/** Pushes permission profiles to the knowledge service as the agent runtime. */
export class KnowledgeAccessClient {
  private readonly stamp: () => string;

  constructor(private readonly o: KnowledgeAccessClientOptions) {
    this.stamp = serviceStamp('agent-runtime', o.tenantId, o.principalKeys);
  }

  /**
   * Replace the tenant's profiles in the knowledge service with `profiles`.
   * @throws KnowledgeAccessError with the service's `code`, or `knowledge_unreachable` (status 0).
   */
  async replaceProfiles(profiles: readonly AccessProfileInput[]): Promise<AccessProfilesSynced> {
    let res;
    try {
      res = await request(`${this.o.baseUrl}/v1/internal/knowledge/access-profiles`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-svc-principal': this.stamp() },
        body: JSON.stringify({ profiles }),
        signal: AbortSignal.timeout(this.o.timeoutMs ?? 5000),
      });
    } catch (err) {
      throw new KnowledgeAccessError(`knowledge service unreachable: ${err instanceof Error ? err.message : String(err)}`, 0, 'knowledge_unreachable');
    }
    const text = await res.body.text();
    let body: unknown = null;
    try { body = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    if (res.statusCode === 200) return body as AccessProfilesSynced;
    const e = (body ?? {}) as { error?: unknown; code?: unknown };
    throw new KnowledgeAccessError(typeof e.error === 'string' ? e.error : `HTTP ${res.statusCode}`, res.statusCode, typeof e.code === 'string' ? e.code : `http_${res.statusCode}`);
  }
}
