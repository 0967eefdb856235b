/**
 * Policy use cases (spec "Guardrail"): the effective policy of a tenant and agent (built-in
 * defaults <- tenant override <- agent override), and the admin's changes: a partial override
 * merged into the stored one at the tenant or agent level, or its removal.
 */
import { DomainError, type CommonErrorCode } from '../../../shared/kit/domain-error.js';
import type { Principal } from '../../../shared/identity/principal.js';
import type { GuardPolicy, PolicyPutRequest, PolicyView } from '../contracts.js';
import { DEFAULT_POLICY, resolvePolicy, validateOverride } from './policy.js';
import type { PolicyStore } from './ports.js';
import { callerTenant } from './scope.js';

/** The policy use cases. */
export class PolicyBook {
  /** @param tenantId the service's pinned tenant (for principals without one). */
  constructor(private readonly store: PolicyStore, private readonly tenantId: string) {}

  /** Effective policy for (tenant, agent) and the overrides it came from. */
  async effective(tenantId: string, agentId: string | null | undefined): Promise<PolicyView> {
    const tenant = (await this.store.getPolicy(tenantId, ''))?.policy ?? null;
    const agent = agentId ? (await this.store.getPolicy(tenantId, agentId))?.policy ?? null : null;
    const policy: GuardPolicy = resolvePolicy(DEFAULT_POLICY, tenant, agent);
    return { tenant_id: tenantId, agent_id: agentId ?? null, policy, overrides: { tenant, agent } };
  }

  /** The caller's view of an agent's (or the tenant's) policy. @throws DomainError `tenant_mismatch`. */
  view(p: Principal, tenantId: string | undefined, agentId: string | undefined): Promise<PolicyView> {
    return this.effective(callerTenant(p, tenantId, this.tenantId), agentId);
  }

  /**
   * Merge a partial override into the stored one (agent level when `agent_id` is set).
   * The caller must be an admin (checked by the route).
   * @throws DomainError `tenant_mismatch`, `invalid_request` (field `body.policy...`: unknown section or key, bad value).
   */
  async put(p: Principal, body: PolicyPutRequest): Promise<PolicyView> {
    callerTenant(p, body.tenant_id, this.tenantId);
    const v = validateOverride(body.policy);
    if (!v.ok) throw new DomainError<CommonErrorCode>('invalid_request', v.error, { extra: { field: `body.${v.field}` } });
    const tenantId = p.tenant_id || this.tenantId;
    const agentId = body.agent_id ?? '';
    const existing = (await this.store.getPolicy(tenantId, agentId))?.policy ?? {};
    const merged: Record<string, object> = { ...(existing as Record<string, object>) };
    for (const [k, val] of Object.entries(v.value)) merged[k] = { ...(merged[k] ?? {}), ...(val as object) };
    await this.store.putPolicy(tenantId, agentId, merged, p.id);
    return this.effective(tenantId, agentId || null);
  }

  /** Remove the override of the tenant or an agent (none: nothing happens). @throws DomainError `tenant_mismatch`. */
  async remove(p: Principal, tenantId: string | undefined, agentId: string | undefined): Promise<void> {
    callerTenant(p, tenantId, this.tenantId);
    await this.store.deletePolicy(p.tenant_id || this.tenantId, agentId ?? '');
  }
}
