/**
 * Public surface of the embedder (an internal module, not a listening service; DESIGN.md layout
 * `services/embedder/`): one local 384-d sentence model used by memory and knowledge.
 */

/** Where the embedder stands. `unavailable`: no model files were found (dense retrieval is off). */
export type EmbedderState = 'loading' | 'ready' | 'unavailable' | 'failed';

/** Status as /readyz and the APIs report it. */
export interface EmbedderStatus {
  state: EmbedderState;
  /** Model folder name, e.g. `all-MiniLM-L6-v2`, or null when none was found. */
  model: string | null;
  /** Folder the model was loaded from. */
  path: string | null;
  /** Vector width produced (after load), or the configured width. */
  dims: number;
  /** ONNX file in use (`model_quantized.onnx` = int8, `model.onnx` = fp32). */
  file: string | null;
  /** Why dense retrieval is off, when it is. */
  reason: string | null;
  /** Texts embedded since start. */
  texts_embedded: number;
}

/** Options of `createEmbedder`. */
export interface EmbedderOptions {
  /** Folders searched in order (SVC_MODELS_DIR, `<repo>/assets/models`, `<dataDir>/models`). */
  modelDirs: readonly string[];
  /** Model folder name looked up in each folder (default all-MiniLM-L6-v2). */
  model?: string;
  /** Expected width (EMBEDDING_DIMS); a model of another width is refused. */
  dims: number;
  /** Largest number of texts per model call (default 32). */
  maxBatch?: number;
  /** onnxruntime intra-op threads (default 1: these laptops share their cores). */
  threads?: number;
}

/** Queue class of a request: `query` texts jump ahead of `bulk` (ingestion) texts. */
export type EmbedPriority = 'query' | 'bulk';

/** The embedder as services use it. Vectors are L2-normalised Float32Arrays of `dims`. */
export interface Embedder {
  status(): EmbedderStatus;
  /** Resolves once loading ended (ready, unavailable or failed). */
  whenSettled(): Promise<EmbedderStatus>;
  /** True when `embed` can answer. */
  readonly available: boolean;
  /** @throws Error when no model is available. */
  embed(texts: readonly string[], priority?: EmbedPriority): Promise<Float32Array[]>;
  close(): Promise<void>;
}
