/**
 * Per-service settings readers: each service's own environment variables live in its own file here,
 * so services can grow their settings without touching main/config/index.ts.
 */
import type { ServiceName } from '../../../services/shared/services.js';
import type { Env, ExtrasContext } from './types.js';
import { agentRuntimeSettings } from './agent-runtime.js';
import { guardrailSettings } from './guardrail.js';
import { memorySettings } from './memory.js';
import { inferenceRouterSettings } from './inference-router.js';
import { sandboxSettings } from './sandbox.js';
import { knowledgeSettings } from './knowledge.js';
import { observabilitySettings } from './observability.js';
import { dirauthSettings } from './dirauth.js';

/** Readers for the services whose slices are "common settings plus extras". */
export const SERVICE_SETTINGS: Partial<Record<ServiceName, (env: Env, ctx: ExtrasContext) => Record<string, unknown>>> = {
  'agent-runtime': agentRuntimeSettings,
  guardrail: guardrailSettings,
  memory: memorySettings,
  'inference-router': inferenceRouterSettings,
  sandbox: sandboxSettings,
  knowledge: knowledgeSettings,
  observability: observabilitySettings,
  dirauth: dirauthSettings,
};

export type { Env, ExtrasContext };
