/**
 * Per-tool approval policy (issue 5 item 3: auto / ask / deny, per tenant and agent). Pure.
 *
 * Rules come from AGENT_RUNTIME_TOOL_POLICY (base) and from admins (stored; they win over base rules
 * of the same specificity). The most specific matching rule decides: a rule naming the agent beats
 * one for every agent; an exact tool name beats `*`; a rule naming the tenant beats one without.
 * With no rule, the tool's own `policy` applies (built-ins: `auto`).
 */
import type { SourcedRule, ToolPolicy } from '../contracts.js';

export type { SourcedRule };

function score(r: SourcedRule): number {
  return (r.agent_id !== undefined && r.agent_id !== '' ? 8 : 0) + (r.tool !== '*' ? 4 : 0) + (r.tenant_id !== undefined ? 2 : 0) + (r.origin === 'admin' ? 1 : 0);
}

/**
 * Which tools a caller may be offered, from their permission profiles (issue 13 item 8): true = may.
 * Absent (null) = every tool, as without profiles.
 */
export type ToolGate = (tool: string) => boolean;

/** `policy`, or `deny` when the caller's `gate` keeps `tool` from them (never offered, never run). */
export function gatedPolicy(gate: ToolGate | null, tool: string, policy: ToolPolicy): ToolPolicy {
  return gate && !gate(tool) ? 'deny' : policy;
}

/**
 * The policy for `tool` of `agentId` in `tenantId`.
 * @param fallback the tool's default when no rule matches.
 */
export function resolvePolicy(rules: readonly SourcedRule[], tenantId: string, agentId: string, tool: string, fallback: ToolPolicy = 'auto'): { policy: ToolPolicy; rule: SourcedRule | null } {
  let best: SourcedRule | null = null;
  for (const r of rules) {
    if (r.tool !== '*' && r.tool !== tool) continue;
    if (r.tenant_id !== undefined && r.tenant_id !== tenantId) continue;
    if (r.agent_id !== undefined && r.agent_id !== '' && r.agent_id !== agentId) continue;
    if (!best || score(r) > score(best)) best = r;
  }
  return { policy: best?.policy ?? fallback, rule: best };
}
