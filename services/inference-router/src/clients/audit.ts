/**
 * Audit rows for registry changes (issue 4: "an audit row per change"): the router appends one row
 * per admin change through the audit service's `POST /v1/audit`, as the router's service principal
 * naming the admin as `user_id`. Best effort with one retry: the change itself is already committed,
 * a failure is logged.
 */
import { request } from 'undici';
import type { Logger } from 'pino';

/** One admin change. `detail` must not hold secrets (keys are reported as `has_api_key`). */
export interface AdminChange {
  action: string;
  resourceType: 'inference_provider' | 'inference_role';
  resourceId: string;
  userId: string;
  detail: Record<string, unknown>;
}

/** Appends audit rows for admin changes. */
export class AuditRecorder {
  constructor(private readonly url: string, private readonly stamp: () => string, private readonly log: Logger) {}

  /** Append the row; resolves once written or given up (never throws). */
  async record(c: AdminChange): Promise<void> {
    const body = JSON.stringify({
      action: c.action, resource_type: c.resourceType, resource_id: c.resourceId, user_id: c.userId,
      detail_type: 'inference_admin_change', detail: c.detail,
    });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const r = await request(`${this.url}/v1/audit`, {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-principal': this.stamp() }, body, headersTimeout: 5000, bodyTimeout: 5000,
        });
        await r.body.dump();
        if (r.statusCode === 201) return;
        this.log.warn({ status: r.statusCode, action: c.action }, 'audit refused an admin-change row');
        if (r.statusCode < 500) return;
      } catch (err) {
        this.log.warn({ err: (err as Error).message, action: c.action }, 'audit unreachable for an admin-change row');
      }
    }
  }
}
