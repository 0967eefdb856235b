/**
 * Environment settings of the memory service, merged into its config slice by main/config.
 * It returns `MemorySettings` (services/memory/src/contracts.ts); the defaults live here only.
 *
 * | Variable | Default | Meaning |
 * |---|---|---|
 * | EMBEDDING_DIMS | 384 | vector width; a change recreates the vector index and re-embeds in the background |
 * | CONSOLIDATION_INTERVAL_HOURS | 24 | period of consolidation (near-duplicates merged, expired removed); 0 turns the timer off |
 * | SVC_MODELS_DIR / SVC_EMBEDDING_MODEL | | as for knowledge (one model, same lookup order) |
 * | MEMORY_PREFETCH_TOKEN_BUDGET | 512 | default token budget of POST /v1/memory/prefetch |
 * | MEMORY_DUPLICATE_SIMILARITY | 0.92 | cosine at or above which two memories of a scope are near-duplicates |
 */
import type { MemorySettings } from '../../../services/memory/src/contracts.js';
import { fraction, int } from '../env.js';
import { embeddingSettings } from './knowledge.js';
import type { ExtrasContext, Env } from './types.js';

/**
 * Read the memory settings from `env`.
 * @throws ConfigError naming the variable to set.
 */
export function memorySettings(env: Env, ctx: ExtrasContext): MemorySettings {
  return {
    ...embeddingSettings(env, ctx),
    consolidationIntervalHours: fraction(env, 'CONSOLIDATION_INTERVAL_HOURS', 24, 0, 24 * 365),
    prefetchTokenBudget: int(env, 'MEMORY_PREFETCH_TOKEN_BUDGET', 512, 16, 32_768),
    duplicateSimilarity: fraction(env, 'MEMORY_DUPLICATE_SIMILARITY', 0.92, 0.5, 1),
  };
}
