/**
 * Environment settings of the knowledge service, merged into its config slice by main/config.
 * It returns `KnowledgeSettings` (services/knowledge/src/contracts.ts); the defaults live here only.
 *
 * | Variable | Default | Meaning |
 * |---|---|---|
 * | EMBEDDING_DIMS | 384 | vector width; a change recreates the vector index and re-embeds in the background |
 * | SEARCH_SCORE_THRESHOLD | 0.5 | minimum normalised score (0-1) of a search result |
 * | SPARSE_EMBEDDING_ENABLED | true | hybrid dense + sparse (BM25) search; false: dense only (sparse still serves when no model) |
 * | SVC_MODELS_DIR | (none) | first folder searched for the embedding model |
 * | SVC_EMBEDDING_MODEL | all-MiniLM-L6-v2 | model folder name looked up in each models folder |
 * | KNOWLEDGE_MAX_UPLOAD_BYTES | 52428800 | largest file accepted by POST /v1/knowledge/ingest |
 * | KNOWLEDGE_CHUNK_CHARS | 2000 | target chunk size, characters |
 * | KNOWLEDGE_CHUNK_OVERLAP_CHARS | 200 | overlap carried into the next chunk, characters |
 * | LLM_MODEL | default | model role used where the knowledge service asks a model |
 *
 * Model lookup order (DESIGN.md): SVC_MODELS_DIR, then `<repo>/assets/models`, then `<dataDir>/models`.
 */
import { join } from 'node:path';
import type { KnowledgeSettings } from '../../../services/knowledge/src/contracts.js';
import { ConfigError, bool, fraction, int, str } from '../env.js';
import type { ExtrasContext, Env } from './types.js';

export { fraction } from '../env.js';

/** The embedding settings knowledge and memory share (one model, same folders). */
export type EmbeddingSettings = Pick<KnowledgeSettings, 'embeddingDims' | 'modelDirs' | 'embeddingModel'>;

/** Embedding settings shared by knowledge and memory (same model, same folders). */
export function embeddingSettings(env: Env, ctx: ExtrasContext): EmbeddingSettings {
  const dirs: string[] = [];
  const explicit = str(env, 'SVC_MODELS_DIR');
  if (explicit) dirs.push(explicit);
  dirs.push(join(ctx.repoRoot, 'assets', 'models'), join(ctx.dataDir, 'models'));
  const model = str(env, 'SVC_EMBEDDING_MODEL') || 'all-MiniLM-L6-v2';
  if (!/^[A-Za-z0-9._/-]+$/.test(model) || model.includes('..')) throw new ConfigError('SVC_EMBEDDING_MODEL must be a folder name such as all-MiniLM-L6-v2');
  return { embeddingDims: int(env, 'EMBEDDING_DIMS', 384, 8, 4096), modelDirs: dirs, embeddingModel: model };
}

/**
 * Read the knowledge settings from `env`.
 * @throws ConfigError naming the variable to set.
 */
export function knowledgeSettings(env: Env, ctx: ExtrasContext): KnowledgeSettings {
  const chunkChars = int(env, 'KNOWLEDGE_CHUNK_CHARS', 2000, 200, 20_000);
  const overlap = int(env, 'KNOWLEDGE_CHUNK_OVERLAP_CHARS', 200, 0, 5_000);
  if (overlap >= chunkChars / 2) throw new ConfigError('KNOWLEDGE_CHUNK_OVERLAP_CHARS must be less than half of KNOWLEDGE_CHUNK_CHARS');
  return {
    ...embeddingSettings(env, ctx),
    searchScoreThreshold: fraction(env, 'SEARCH_SCORE_THRESHOLD', 0.5, 0, 1),
    sparseEnabled: bool(env, 'SPARSE_EMBEDDING_ENABLED', true),
    maxUploadBytes: int(env, 'KNOWLEDGE_MAX_UPLOAD_BYTES', 50 * 1024 * 1024, 1024, 1 << 30),
    chunkChars,
    chunkOverlapChars: overlap,
    llmModel: str(env, 'LLM_MODEL') || 'default',
  };
}
