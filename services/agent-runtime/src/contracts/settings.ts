/**
 * Settings of the agent runtime and its start arguments. main/config/services/agent-runtime.ts reads
 * the settings from the environment and holds their defaults (the only place that does); the
 * runtime receives them complete in its config slice.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import type { CommonServiceConfig } from '../../../shared/config.js';
import { StringEnum } from './atoms.js';
import type { AgentTool } from './tools.js';

/** Tool policy values. */
export const TOOL_POLICIES = ['auto', 'ask', 'deny'] as const;

/** Per-tool approval policy (issue 5 item 3): run at once, ask the user first, or never run. */
export const ToolPolicySchema = StringEnum(TOOL_POLICIES);
/** Per-tool approval policy. */
export type ToolPolicy = Static<typeof ToolPolicySchema>;

/** One policy rule. Absent tenant/agent = any; `tool` may be `*`. The most specific rule wins. */
export const ToolPolicyRuleSchema = Type.Object({
  tool: Type.String(),
  policy: ToolPolicySchema,
  tenant_id: Type.Optional(Type.String()),
  agent_id: Type.Optional(Type.String()),
});
/** One policy rule. */
export type ToolPolicyRule = Static<typeof ToolPolicyRuleSchema>;

/**
 * What to do when the guardrail cannot be reached at all (connection refused): `open` allows and
 * records `unavailable` in the trace, `closed` (the default) refuses the turn. A check that was sent
 * but did not finish always refuses the turn (`blocked`), whatever the mode (issue 11 item 6).
 */
export type GuardrailFailMode = 'open' | 'closed';

/** Settings of the runtime (main/config/services/agent-runtime.ts reads them from the environment). */
export interface AgentRuntimeSettings {
  /** Model calls per turn before the loop stops offering tools (AGENT_RUNTIME_MAX_TOOL_STEPS). */
  maxToolSteps: number;
  /** Prompt budget in estimated tokens for history + input (AGENT_RUNTIME_CONTEXT_BUDGET_TOKENS). */
  contextBudgetTokens: number;
  /** Tokens kept free for the answer inside the budget (AGENT_RUNTIME_RESPONSE_RESERVE_TOKENS). */
  responseReserveTokens: number;
  /** How long a parked run waits for a decision, seconds (AGENT_RUNTIME_APPROVAL_TIMEOUT_SECONDS). */
  approvalTimeoutSeconds: number;
  /** AGENT_RUNTIME_GUARDRAIL_FAIL_MODE (default `closed`; `open` lets turns through only while the guardrail is unreachable). */
  guardrailFailMode: GuardrailFailMode;
  /** Base rules (AGENT_RUNTIME_TOOL_POLICY, JSON); admin rules stored in the runtime override them. */
  toolPolicy: ToolPolicyRule[];
  /** System prompt prepended to every turn (AGENT_RUNTIME_SYSTEM_PROMPT), or null. */
  systemPrompt: string | null;
  /** Agent id when a request names none (AGENT_RUNTIME_DEFAULT_AGENT_ID). */
  defaultAgentId: string;
  /** Timeout of one model call, seconds (AGENT_RUNTIME_MODEL_TIMEOUT_SECONDS). */
  modelTimeoutSeconds: number;
  /** Generate session titles through the `title` role (AGENT_RUNTIME_TITLES). */
  titleGeneration: boolean;
  /** Memory prefetch and knowledge retrieval before the model call (AGENT_RUNTIME_CONTEXT_PREFETCH). */
  contextPrefetch: boolean;
  /** Timeout of guardrail, memory and knowledge calls, ms (AGENT_RUNTIME_SIDECAR_TIMEOUT_MS). */
  sidecarTimeoutMs: number;
  /** Context records (the "why this answer" trace) kept per user, the oldest removed first (AGENT_RUNTIME_CONTEXT_RECORDS_PER_USER; absent = 1000; issue 13 item 5). */
  contextRecordsPerUser?: number;
  /** SVC_GROUP_ROLE_MAP as parsed, shown by `GET /v1/admin/roles` (absent when the variable is not set; issue 13 item 8). */
  groupRoleMap?: Record<string, string[]>;
  /** Service names allowed to post notifications (NOTIFICATIONS_PRODUCERS; issue 13 item 1). */
  notificationProducers: string[];
  /** Notifications kept per user; read ones are evicted first (NOTIFICATIONS_MAX_PER_USER). */
  notificationsMaxPerUser: number;
  /** `/v1/conversations*` and `conversation_id` in chat (AGENT_RUNTIME_CONVERSATIONS_ENABLED, default false; issue 13 item 4). */
  conversationsEnabled: boolean;
  /** Estimated tokens of the user's profile in the prompt, 0 = not sent (AGENT_RUNTIME_PROFILE_BUDGET_TOKENS, default 256; issue 13 item 2). */
  profileBudgetTokens: number;
  /** Where the secrets data key is kept (SVC_SECRET_STORE: `auto` = OS keychain when one answers, else a 0600 key file; issue 13 item 3). */
  secretStore: 'auto' | 'keychain' | 'file';
}

/** The runtime's config slice: common settings plus every `AgentRuntimeSettings`. */
export type AgentRuntimeConfig = CommonServiceConfig & AgentRuntimeSettings;

/** A service whose tools plug in while it answers `/readyz`. */
export interface PluginSource {
  /** Service name (also the registry source name). */
  service: 'knowledge' | 'memory' | 'sandbox';
  /** URL of the module that exports `plugin: ToolPlugin`. */
  moduleUrl: string;
}

/** The runtime argument of `start(cfg, runtime)`: host hooks and test seams. */
export interface AgentRuntimeHooks {
  /** Extra tools registered at start under the source name `extra`. */
  extraTools?: AgentTool[];
  /** Plug-in sources to look for instead of the knowledge, memory and sandbox modules. */
  pluginSources?: PluginSource[];
  /** How often plug-in sources are probed, ms (default 30,000; 0 = only in the first seconds after start). */
  pluginProbeMs?: number;
}
