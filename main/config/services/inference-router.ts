/**
 * Environment settings of the inference-router service, merged into its config slice by main/config.
 * It returns `InferenceRouterSettings` (services/inference-router/src/contracts.ts); the defaults live here only.
 *
 * - `SVC_MODELS_DIR`: models folder (GGUF files under `llm/`); else `<repo>/assets/models` when it
 *   exists; else `<data dir>/models` (DESIGN.md "Environment facts")
 * - `SVC_LOCAL_LLM_ENABLED` (true), `SVC_LOCAL_LLM_THREADS` (2), `SVC_LOCAL_LLM_CONTEXT` (512 tokens),
 *   `SVC_LOCAL_LLM_MAX_TOKENS` (256)
 * - `SVC_ROUTER_SNAPSHOT_REFRESH_SECONDS` (30, spec "Limits"), `SVC_ROUTER_COOLDOWN_SECONDS` (30),
 *   `SVC_ROUTER_PROBE_TIMEOUT_MS` (5000), `SVC_ROUTER_UPSTREAM_TIMEOUT_MS` (120000),
 *   `SVC_ROUTER_BUDGET_CACHE_MS` (5000)
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { InferenceRouterSettings } from '../../../services/inference-router/src/contracts.js';
import { ConfigError, bool, int, str } from '../env.js';
import type { ExtrasContext, Env } from './types.js';

/** Parse SVC_SECRET_STORE (default `auto`). @throws ConfigError naming the variable. */
function secretStoreChoice(raw: string | undefined): InferenceRouterSettings['secretStore'] {
  const v = (raw || 'auto').toLowerCase();
  if (v === 'auto' || v === 'keychain' || v === 'file') return v;
  throw new ConfigError(`SVC_SECRET_STORE must be auto, keychain or file, got "${raw}"`);
}

/**
 * Read the inference-router settings from `env`.
 * @throws ConfigError naming the variable to set.
 */
export function inferenceRouterSettings(env: Env, ctx: ExtrasContext): InferenceRouterSettings {
  const explicit = str(env, 'SVC_MODELS_DIR');
  const packaged = join(ctx.repoRoot, 'assets', 'models');
  const modelsDir = explicit ? resolve(explicit) : existsSync(packaged) ? packaged : join(ctx.dataDir, 'models');
  return {
    modelsDir,
    localEngineEnabled: bool(env, 'SVC_LOCAL_LLM_ENABLED', true),
    localThreads: int(env, 'SVC_LOCAL_LLM_THREADS', 2, 1, 256),
    localContextSize: int(env, 'SVC_LOCAL_LLM_CONTEXT', 512, 64, 1 << 20),
    localMaxTokens: int(env, 'SVC_LOCAL_LLM_MAX_TOKENS', 256, 1, 1 << 20),
    snapshotRefreshSeconds: int(env, 'SVC_ROUTER_SNAPSHOT_REFRESH_SECONDS', 30, 1, 86_400),
    cooldownSeconds: int(env, 'SVC_ROUTER_COOLDOWN_SECONDS', 30, 0, 86_400),
    probeTimeoutMs: int(env, 'SVC_ROUTER_PROBE_TIMEOUT_MS', 5000, 100, 600_000),
    upstreamTimeoutMs: int(env, 'SVC_ROUTER_UPSTREAM_TIMEOUT_MS', 120_000, 100, 3_600_000),
    budgetCacheMs: int(env, 'SVC_ROUTER_BUDGET_CACHE_MS', 5000, 0, 3_600_000),
    secretStore: secretStoreChoice(str(env, 'SVC_SECRET_STORE')),
  };
}
