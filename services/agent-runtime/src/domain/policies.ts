/**
 * Tool policies in force (issue 5 item 3; spec "Agent runtime surfaces": `/v1/admin/policies/*`,
 * `GET /v1/tools`): the base rules of the settings (AGENT_RUNTIME_TOOL_POLICY) plus the rules
 * admins store per tenant, and what they make of each registered tool.
 */
import type { PolicyPut, SourcedRule, ToolList, ToolPolicy, ToolPolicyRule } from '../contracts.js';
import { runtimeError } from './errors.js';
import type { Awaitable } from '../../../shared/db/async-store.js';
import type { PolicyStore } from './ports.js';
import type { ToolRegistry } from './tool-registry.js';
import { resolvePolicy, type ToolGate } from './tool-policy.js';

/** What the policies need. */
export interface PolicyDeps {
  /** Base rules (settings `toolPolicy`). */
  base: readonly ToolPolicyRule[];
  store: PolicyStore;
  tools: ToolRegistry;
  /** Agent of `GET /v1/tools` when the query names none (settings `defaultAgentId`). */
  defaultAgentId: string;
  /** The tools a caller's permission profiles allow (issue 13 item 8); absent or null = every tool. */
  toolGate?(tenantId: string, who: { roles?: readonly string[]; groups?: readonly string[] }): Awaitable<ToolGate | null>;
}

/** The admin view of a tenant's policies: rules in force and every tool's own default. */
export interface PolicyView {
  items: SourcedRule[];
  tools: Array<{ name: string; source: string; default_policy: ToolPolicy }>;
}

/** Tool policy rules and their effect. */
export class ToolPolicies {
  private readonly base: SourcedRule[];

  constructor(private readonly d: PolicyDeps) {
    this.base = d.base.map((r) => ({ ...r, origin: 'config' as const }));
  }

  /** Rules in force for a tenant: base rules, then stored admin rules. */
  async rules(tenantId: string): Promise<SourcedRule[]> {
    return [
      ...this.base,
      ...(await this.d.store.list(tenantId)).map((r): SourcedRule => ({
        tool: r.tool, policy: r.policy as ToolPolicy, tenant_id: r.tenant_id, ...(r.agent_id ? { agent_id: r.agent_id } : {}), origin: 'admin',
      })),
    ];
  }

  /**
   * Every registered tool with its effective policy for `agentId` (default agent when absent) in the
   * tenant; with `who`, only the tools its permission profiles allow.
   */
  async visibleTools(tenantId: string, agentId: string | undefined, who?: { roles?: readonly string[]; groups?: readonly string[] }): Promise<ToolList> {
    const agent = agentId ?? this.d.defaultAgentId;
    const rules = await this.rules(tenantId);
    const gate = who ? (await this.d.toolGate?.(tenantId, who)) ?? null : null;
    return {
      items: this.d.tools.list().filter((t) => !gate || gate(t.definition.function.name)).map((t) => ({
        name: t.definition.function.name, description: t.definition.function.description, source: t.source,
        policy: resolvePolicy(rules, tenantId, agent, t.definition.function.name, t.policy ?? 'auto').policy,
      })),
    };
  }

  /** The admin view of a tenant's policies. */
  async view(tenantId: string): Promise<PolicyView> {
    return {
      items: await this.rules(tenantId),
      tools: this.d.tools.list().map((t) => ({ name: t.definition.function.name, source: t.source, default_policy: t.policy ?? 'auto' })),
    };
  }

  /** Store (or replace) the rule of `tool` for the tenant and optionally one agent. @returns the rule. */
  async set(tenantId: string, tool: string, rule: PolicyPut, by: string | null): Promise<SourcedRule> {
    await this.d.store.upsert(tenantId, rule.agent_id ?? '', tool, rule.policy, new Date().toISOString(), by);
    return { tool, policy: rule.policy, tenant_id: tenantId, ...(rule.agent_id ? { agent_id: rule.agent_id } : {}), origin: 'admin' };
  }

  /** Remove a stored rule. @throws DomainError `not_found` when there is none. */
  async remove(tenantId: string, tool: string, agentId: string | undefined): Promise<void> {
    if (!await this.d.store.delete(tenantId, agentId ?? '', tool)) throw runtimeError('not_found', 'no such policy rule');
  }
}
