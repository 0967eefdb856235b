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
 * | KNOWLEDGE_MAX_EXPANDED_BYTES | 67108864 | most bytes a DOCX may expand to when unpacked (read from its ZIP directory before inflating, then verified); more is refused |
 * | KNOWLEDGE_MAX_PDF_PAGES | 2000 | most pages of a PDF; more is refused before any page is read |
 * | KNOWLEDGE_MAX_TEXT_CHARS | 8000000 | most characters of text one document may hold; extraction stops and refuses past it |
 * | KNOWLEDGE_MAX_CHUNKS_PER_DOCUMENT | 5000 | most chunks of one document (file, text or batch record); more is refused |
 * | KNOWLEDGE_PARSE_TIMEOUT_MS | 120000 | wall time of one document's parse; its worker is stopped and the document refused after it |
 * | KNOWLEDGE_PARSE_MEMORY_MB | 1024 | heap of the worker thread that parses one document; a parse that needs more is refused |
 * | KNOWLEDGE_PARSE_CONCURRENCY | 2 | documents parsed at once, each in its own worker thread; others wait their turn |
 * | KNOWLEDGE_INGEST_WAIT_MS | 10000 | how long an upload's answer waits for its parse; after it the answer is 202 `indexing` and the parse goes on |
 *
 * Model lookup order (DESIGN.md): SVC_MODELS_DIR, then `<repo>/assets/models`, then `<dataDir>/models`.
 *
 * Document limits (issue 11 item 5 "Document bombs"): the defaults admit a document of about 3,000
 * pages of prose (8 M characters make about 4,000 chunks of 2,000) and a DOCX whose pictures fill
 * an upload of the largest size (pictures are stored about 1:1), while the 200 MB DOCX and 300 MB
 * PDF of the attack probe are refused. mammoth needs about 30 MB of heap per MB of document XML,
 * so 1 GB holds a DOCX of some 30 MB of XML; a heavier one is refused for memory, not the service.
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

/** The document limit settings of `KnowledgeSettings` (issue 11 item 5), read from `env`. */
export type DocumentLimitSettings = Pick<KnowledgeSettings,
  'maxExpandedBytes' | 'maxPdfPages' | 'maxTextChars' | 'maxChunksPerDocument' | 'parseTimeoutMs' | 'parseMemoryMb' | 'parseConcurrency' | 'ingestWaitMs'>;

/**
 * Document limits and parsing budget (issue 11 item 5 "Document bombs").
 * @throws ConfigError naming the variable to set.
 */
export function documentLimitSettings(env: Env): DocumentLimitSettings {
  return {
    maxExpandedBytes: int(env, 'KNOWLEDGE_MAX_EXPANDED_BYTES', 64 * 1024 * 1024, 1024 * 1024, 4 * 1024 * 1024 * 1024),
    maxPdfPages: int(env, 'KNOWLEDGE_MAX_PDF_PAGES', 2000, 1, 100_000),
    maxTextChars: int(env, 'KNOWLEDGE_MAX_TEXT_CHARS', 8_000_000, 1000, 200_000_000),
    maxChunksPerDocument: int(env, 'KNOWLEDGE_MAX_CHUNKS_PER_DOCUMENT', 5000, 1, 1_000_000),
    parseTimeoutMs: int(env, 'KNOWLEDGE_PARSE_TIMEOUT_MS', 120_000, 1000, 3_600_000),
    parseMemoryMb: int(env, 'KNOWLEDGE_PARSE_MEMORY_MB', 1024, 64, 16_384),
    parseConcurrency: int(env, 'KNOWLEDGE_PARSE_CONCURRENCY', 2, 1, 16),
    ingestWaitMs: int(env, 'KNOWLEDGE_INGEST_WAIT_MS', 10_000, 0, 600_000),
  };
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
    ...documentLimitSettings(env),
  };
}
