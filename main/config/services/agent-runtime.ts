/**
 * Environment settings of the agent-runtime service, merged into its config slice by main/config.
 * It returns `AgentRuntimeSettings` (services/agent-runtime/src/contracts.ts); the defaults live here only.
 *
 * | Variable | Default | Meaning |
 * |---|---|---|
 * | AGENT_RUNTIME_MAX_TOOL_STEPS | 8 | model calls per turn before tools are withdrawn (1-64) |
 * | AGENT_RUNTIME_CONTEXT_BUDGET_TOKENS | 8192 | prompt budget for history + input, estimated tokens |
 * | AGENT_RUNTIME_RESPONSE_RESERVE_TOKENS | 1024 | tokens kept free for the answer inside the budget |
 * | AGENT_RUNTIME_APPROVAL_TIMEOUT_SECONDS | 600 | how long a parked run waits for an approval decision |
 * | AGENT_RUNTIME_GUARDRAIL_FAIL_MODE | closed | guardrail unreachable (connection refused): `closed` refuses the turn (`guardrail_unavailable`), `open` allows it (trace says unavailable); a check that was sent but did not finish is always refused (`blocked`) |
 * | AGENT_RUNTIME_TOOL_POLICY | (none) | JSON: `{"tool":"ask",...}` or `[{tool, policy, tenant_id?, agent_id?}]` |
 * | AGENT_RUNTIME_SYSTEM_PROMPT | (none) | system prompt prepended to every turn |
 * | AGENT_RUNTIME_DEFAULT_AGENT_ID | default | agent id when a request names none |
 * | AGENT_RUNTIME_MODEL_TIMEOUT_SECONDS | 120 | timeout of one model call |
 * | AGENT_RUNTIME_TITLES | true | generate session titles through the `title` role |
 * | AGENT_RUNTIME_CONTEXT_PREFETCH | true | memory prefetch and knowledge retrieval before the model |
 * | AGENT_RUNTIME_SIDECAR_TIMEOUT_MS | 3000 | timeout of guardrail, memory and knowledge calls |
 */
import type { AgentRuntimeSettings, GuardrailFailMode, ToolPolicyRule } from '../../../services/agent-runtime/src/contracts.js';
import { ConfigError, bool, int, str } from '../env.js';
import type { ExtrasContext, Env } from './types.js';

const POLICIES: ReadonlySet<string> = new Set<ToolPolicyRule['policy']>(['auto', 'ask', 'deny']);

/** Parse AGENT_RUNTIME_TOOL_POLICY. @throws ConfigError naming the variable. */
function toolPolicy(raw: string | undefined): ToolPolicyRule[] {
  if (!raw) return [];
  let parsed: unknown;
  try { parsed = JSON.parse(raw); } catch { throw new ConfigError('AGENT_RUNTIME_TOOL_POLICY must be JSON: {"tool":"ask"} or [{"tool","policy","tenant_id?","agent_id?"}]'); }
  const rules: ToolPolicyRule[] = [];
  const push = (r: Record<string, unknown>): void => {
    if (typeof r.tool !== 'string' || !r.tool || typeof r.policy !== 'string' || !POLICIES.has(r.policy)) {
      throw new ConfigError('AGENT_RUNTIME_TOOL_POLICY rules need "tool" and "policy" (auto, ask or deny)');
    }
    const rule: ToolPolicyRule = { tool: r.tool, policy: r.policy as ToolPolicyRule['policy'] };
    if (typeof r.tenant_id === 'string') rule.tenant_id = r.tenant_id;
    if (typeof r.agent_id === 'string') rule.agent_id = r.agent_id;
    rules.push(rule);
  };
  if (Array.isArray(parsed)) for (const r of parsed) push((r ?? {}) as Record<string, unknown>);
  else if (parsed && typeof parsed === 'object') for (const [tool, policy] of Object.entries(parsed)) push({ tool, policy });
  else throw new ConfigError('AGENT_RUNTIME_TOOL_POLICY must be a JSON object or array');
  return rules;
}

/**
 * Read the agent-runtime settings from `env`.
 * @throws ConfigError naming the variable to fix.
 */
export function agentRuntimeSettings(env: Env, _ctx: ExtrasContext): AgentRuntimeSettings {
  const failMode = (str(env, 'AGENT_RUNTIME_GUARDRAIL_FAIL_MODE') || 'closed').toLowerCase() as GuardrailFailMode;
  if (failMode !== 'open' && failMode !== 'closed') throw new ConfigError(`AGENT_RUNTIME_GUARDRAIL_FAIL_MODE must be open or closed, got "${failMode}"`);
  const agent = str(env, 'AGENT_RUNTIME_DEFAULT_AGENT_ID') || 'default';
  if (!/^[A-Za-z0-9_.:-]{1,128}$/.test(agent)) throw new ConfigError('AGENT_RUNTIME_DEFAULT_AGENT_ID may hold letters, digits and _.:- (1-128)');
  return {
    maxToolSteps: int(env, 'AGENT_RUNTIME_MAX_TOOL_STEPS', 8, 1, 64),
    contextBudgetTokens: int(env, 'AGENT_RUNTIME_CONTEXT_BUDGET_TOKENS', 8192, 512, 10_000_000),
    responseReserveTokens: int(env, 'AGENT_RUNTIME_RESPONSE_RESERVE_TOKENS', 1024, 0, 1_000_000),
    approvalTimeoutSeconds: int(env, 'AGENT_RUNTIME_APPROVAL_TIMEOUT_SECONDS', 600, 1, 86_400),
    guardrailFailMode: failMode,
    toolPolicy: toolPolicy(str(env, 'AGENT_RUNTIME_TOOL_POLICY')),
    systemPrompt: str(env, 'AGENT_RUNTIME_SYSTEM_PROMPT') || null,
    defaultAgentId: agent,
    modelTimeoutSeconds: int(env, 'AGENT_RUNTIME_MODEL_TIMEOUT_SECONDS', 120, 1, 3600),
    titleGeneration: bool(env, 'AGENT_RUNTIME_TITLES', true),
    contextPrefetch: bool(env, 'AGENT_RUNTIME_CONTEXT_PREFETCH', true),
    sidecarTimeoutMs: int(env, 'AGENT_RUNTIME_SIDECAR_TIMEOUT_MS', 3000, 50, 120_000),
  };
}
