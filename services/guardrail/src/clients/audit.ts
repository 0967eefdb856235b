/**
 * Audit rows the guardrail writes (spec "Audit actions": `guardrail.input.blocked`) through
 * `POST {audit}/v1/audit` with a signed service principal. Details carry scanner names, rule ids and
 * entity kinds only — never the content or a secret value.
 */
import { request } from 'undici';
import { servicePrincipal, signStamp } from '../../../shared/identity/principal.js';

/** Body of the audit append, as the guardrail fills it. */
export interface GuardAuditRow {
  user_id: string;
  action: 'guardrail.input.blocked' | 'guardrail.output.blocked';
  resource_type: 'turn';
  resource_id: string | null;
  agent_id: string | null;
  detail: Record<string, unknown>;
}

/** Append `row`; resolves false (never throws) when audit is unreachable or refuses. */
export async function appendAudit(auditUrl: string, tenantId: string, principalKeys: readonly string[], row: GuardAuditRow, timeoutMs: number): Promise<boolean> {
  try {
    const res = await request(`${auditUrl}/v1/audit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-principal': signStamp(servicePrincipal('guardrail', tenantId), principalKeys) },
      body: JSON.stringify({ tenant_id: tenantId, detail_type: 'guardrail_verdict_v1', result: 'blocked', ...row }),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    await res.body.dump();
    return res.statusCode >= 200 && res.statusCode < 300;
  } catch {
    return false;
  }
}
