/**
 * Tool and guardrail policies in one place (issue 13 item 8; spec "Agent runtime surfaces":
 * `/v1/admin/policies/*`). The tool policies are the runtime's own (`ToolPolicies`, unchanged at
 * `/v1/admin/policies/tools`); the guardrail's effective policy is read from the guardrail
 * (`GET /v1/guard/policy`) and written through it (`PUT`/`DELETE /v1/guard/policy`, as the admin),
 * so the guardrail stays the one owner of its policy and its validation.
 */
import type { GuardPolicyPut, PoliciesSummary } from '../../contracts.js';
import { invalidField, runtimeError } from '../errors.js';
import type { ToolPolicies } from '../policies.js';
import type { AdminPeers, PeerAnswer } from './ports.js';

/**
 * Turn a failed guardrail answer into the runtime's error: its 400 stays `invalid_request` (with
 * the guardrail's `field`), a 403 stays `admin_required`, no answer or a 5xx is `service_unavailable`.
 */
export function guardFailure(a: Extract<PeerAnswer<unknown>, { ok: false }>): Error {
  if (a.status === 400) {
    const field = (a.body as { field?: unknown } | undefined)?.field;
    return typeof field === 'string' ? invalidField(a.error, field) : runtimeError('invalid_request', a.error);
  }
  if (a.status === 403) return runtimeError('admin_required', a.error);
  if (a.status === 404) return runtimeError('not_found', a.error);
  if (a.status >= 400 && a.status < 500) return runtimeError('invalid_request', a.error);
  return runtimeError('service_unavailable', `the guardrail is unavailable: ${a.error}`);
}

/** The policies page. */
export class PolicyHub {
  constructor(private readonly tools: ToolPolicies, private readonly peers: AdminPeers) {}

  /** Tool policies of the tenant and the guardrail's effective tenant policy (unavailable when the guardrail does not answer). */
  async summary(tenantId: string): Promise<PoliciesSummary> {
    const g = await this.peers.guardPolicy(undefined);
    return {
      tools: await this.tools.view(tenantId),
      guardrail: g.ok ? { state: 'ok', error: null, policy: g.body } : { state: 'unavailable', error: g.error, policy: null },
    };
  }

  /** The guardrail's effective policy for the tenant or one agent. @throws DomainError `service_unavailable`. */
  async guardrail(agentId: string | undefined): Promise<Record<string, unknown>> {
    const g = await this.peers.guardPolicy(agentId);
    if (!g.ok) throw guardFailure(g);
    return g.body;
  }

  /** Merge a partial override into the guardrail's policy, as the admin. @throws DomainError `invalid_request` (field), `service_unavailable`. */
  async putGuardrail(as: Record<string, string>, body: GuardPolicyPut): Promise<Record<string, unknown>> {
    const g = await this.peers.putGuardPolicy(as, { ...(body.agent_id ? { agent_id: body.agent_id } : {}), policy: body.policy as Record<string, unknown> });
    if (!g.ok) throw guardFailure(g);
    return g.body;
  }

  /** Remove the tenant's (or an agent's) override, as the admin. @throws DomainError `service_unavailable`. */
  async deleteGuardrail(as: Record<string, string>, agentId: string | undefined): Promise<void> {
    const g = await this.peers.deleteGuardPolicy(as, agentId);
    if (!g.ok) throw guardFailure(g);
  }
}
