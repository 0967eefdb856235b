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
 * | AGENT_RUNTIME_CONTEXT_RECORDS_PER_USER | 1000 | context records (`/v1/context/*`, "why this answer") kept per user; the oldest are removed first (1-1,000,000) |
 * | SVC_GROUP_ROLE_MAP | (none) | the gateway's group -> role map, also read here to show it on `GET /v1/admin/roles` (validated by main/config) |
 * | AGENT_RUNTIME_CONVERSATIONS_ENABLED | false | durable conversations: `/v1/conversations*` and `conversation_id` / `conversation` in chat requests (off: 404 `conversations_disabled`) |
 * | NOTIFICATIONS_PRODUCERS | agent-runtime,knowledge,observability,sandbox,auth,dirauth | services (names, comma-separated) allowed to post `POST /v1/internal/notifications` |
 * | NOTIFICATIONS_MAX_PER_USER | 10000 | notifications kept per user; beyond it the oldest read ones, then the oldest unread ones, are removed (1-1,000,000) |
 * | AGENT_RUNTIME_PROFILE_BUDGET_TOKENS | 256 | estimated tokens of the user's profile in the model's context (0 = the profile is not sent; 0-8192) |
 * | SVC_SECRET_STORE | auto | where the data key of user and tenant secrets is kept: `auto` (OS keychain when one answers, else a 0600 key file), `keychain` (required), `file` |
 */
import type { AgentRuntimeSettings, GuardrailFailMode, ToolPolicyRule } from '../../../services/agent-runtime/src/contracts.js';
import { NOTIFICATION_PRODUCERS_DEFAULT, NOTIFICATIONS_MAX_PER_USER_DEFAULT } from '../../../services/agent-runtime/src/contracts.js';
import { PROFILE_BUDGET_TOKENS_DEFAULT } from '../../../services/agent-runtime/src/contracts.js';
import { CONTEXT_RECORDS_PER_USER_DEFAULT } from '../../../services/agent-runtime/src/contracts.js';
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
 * Parse NOTIFICATIONS_PRODUCERS (comma-separated service names; unset = the platform's own producers).
 * @throws ConfigError naming the variable.
 */
function notificationProducers(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [...NOTIFICATION_PRODUCERS_DEFAULT];
  const names = raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const bad = names.find((n) => !/^[a-z][a-z0-9-]{0,63}$/.test(n));
  if (bad !== undefined) throw new ConfigError(`NOTIFICATIONS_PRODUCERS holds service names (letters, digits, -), got "${bad}"`);
  return [...new Set(names)];
}

/**
 * SVC_GROUP_ROLE_MAP (`GroupA:admin,GroupB:user`) for display on `GET /v1/admin/roles`; main/config
 * validates it for the gateway, this only reads it. Undefined when unset, so the settings stay as they were.
 */
function groupRoleMap(raw: string | undefined): Record<string, string[]> | undefined {
  if (!raw?.trim()) return undefined;
  const out: Record<string, string[]> = {};
  for (const pair of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const i = pair.lastIndexOf(':');
    if (i <= 0) continue;
    const roles = (out[pair.slice(0, i).trim()] ??= []);
    const role = pair.slice(i + 1).trim();
    if (role && !roles.includes(role)) roles.push(role);
  }
  return out;
}

/** Parse SVC_SECRET_STORE (default `auto`; the inference router reads it too). @throws ConfigError naming the variable. */
function secretStoreChoice(raw: string | undefined): AgentRuntimeSettings['secretStore'] {
  const v = (raw ?? '').trim().toLowerCase() || 'auto';
  if (v === 'auto' || v === 'keychain' || v === 'file') return v;
  throw new ConfigError(`SVC_SECRET_STORE must be auto, keychain or file, got "${raw}"`);
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
  const roleMap = groupRoleMap(str(env, 'SVC_GROUP_ROLE_MAP'));
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
    contextRecordsPerUser: int(env, 'AGENT_RUNTIME_CONTEXT_RECORDS_PER_USER', CONTEXT_RECORDS_PER_USER_DEFAULT, 1, 1_000_000),
    conversationsEnabled: bool(env, 'AGENT_RUNTIME_CONVERSATIONS_ENABLED', false),
    notificationProducers: notificationProducers(str(env, 'NOTIFICATIONS_PRODUCERS')),
    notificationsMaxPerUser: int(env, 'NOTIFICATIONS_MAX_PER_USER', NOTIFICATIONS_MAX_PER_USER_DEFAULT, 1, 1_000_000),
    profileBudgetTokens: int(env, 'AGENT_RUNTIME_PROFILE_BUDGET_TOKENS', PROFILE_BUDGET_TOKENS_DEFAULT, 0, 8192),
    secretStore: secretStoreChoice(str(env, 'SVC_SECRET_STORE')),
    ...(roleMap ? { groupRoleMap: roleMap } : {}),
  };
}
