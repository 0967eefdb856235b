/**
 * Per-service settings readers: each service's own environment variables live in its own file here,
 * so services can grow their settings without touching main/config/index.ts. Each reader returns the
 * settings type its service declares in `contracts.ts`, every default filled in (defaults live only
 * in these readers).
 */
import type { AgentRuntimeSettings } from '../../../services/agent-runtime/src/contracts.js';
import type { GuardrailSettings } from '../../../services/guardrail/src/contracts.js';
import type { InferenceRouterSettings } from '../../../services/inference-router/src/contracts.js';
import type { KnowledgeSettings } from '../../../services/knowledge/src/contracts.js';
import type { MemorySettings } from '../../../services/memory/src/contracts.js';
import type { ObservabilitySettings } from '../../../services/observability/src/contracts.js';
import type { SandboxSettings } from '../../../services/sandbox/src/contracts.js';
import type { DirauthSettings } from '../../../services/dirauth/src/contracts.js';
import type { Env, ExtrasContext, NoSettings, SettingsReader } from './types.js';
import { agentRuntimeSettings } from './agent-runtime.js';
import { guardrailSettings } from './guardrail.js';
import { memorySettings } from './memory.js';
import { inferenceRouterSettings } from './inference-router.js';
import { sandboxSettings } from './sandbox.js';
import { knowledgeSettings } from './knowledge.js';
import { observabilitySettings } from './observability.js';
import { dirauthSettings } from './dirauth.js';

/**
 * The settings of each service whose slice is "common settings plus its own" (gateway, auth and
 * audit have dedicated slices in services/shared/config.ts).
 */
export interface ServiceSettings {
  'agent-runtime': AgentRuntimeSettings;
  guardrail: GuardrailSettings;
  memory: MemorySettings;
  'inference-router': InferenceRouterSettings;
  sandbox: SandboxSettings;
  knowledge: KnowledgeSettings;
  observability: ObservabilitySettings;
  dirauth: DirauthSettings;
}

/** The reader of each service in `ServiceSettings`. */
export const SERVICE_SETTINGS: { readonly [K in keyof ServiceSettings]: SettingsReader<ServiceSettings[K]> } = {
  'agent-runtime': agentRuntimeSettings,
  guardrail: guardrailSettings,
  memory: memorySettings,
  'inference-router': inferenceRouterSettings,
  sandbox: sandboxSettings,
  knowledge: knowledgeSettings,
  observability: observabilitySettings,
  dirauth: dirauthSettings,
};

/**
 * Run every reader (in `SERVICE_SETTINGS` order) over `env`.
 * @throws ConfigError from the first reader that refuses its variables.
 */
export function readServiceSettings(env: Env, ctx: ExtrasContext): ServiceSettings {
  const out: Partial<Record<keyof ServiceSettings, unknown>> = {};
  for (const name of Object.keys(SERVICE_SETTINGS) as Array<keyof ServiceSettings>) out[name] = SERVICE_SETTINGS[name](env, ctx);
  return out as ServiceSettings;
}

export type { Env, ExtrasContext, NoSettings, SettingsReader };
