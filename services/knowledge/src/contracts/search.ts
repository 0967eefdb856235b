/**
 * Search and status contracts (spec "Knowledge": `POST /v1/knowledge/search`, "Search result",
 * "Knowledge defaults"; `GET /v1/knowledge/status`).
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { NullableString, StringEnum } from './common.js';

const FilterEntry = Type.String({ minLength: 1, maxLength: 256 });

/**
 * A narrowing of a search (issue 17 item 1: an agent's `knowledge`): only documents carrying one of
 * `tags`, shared with one of `audiences`, or among `document_ids` (any of the three) are searched,
 * and always within what the caller may read (never wider). Lists left out or empty do not narrow;
 * a filter with none narrows nothing.
 */
export const SearchFilterSchema = Type.Object({
  tags: Type.Optional(Type.Array(FilterEntry, { maxItems: 64 })),
  audiences: Type.Optional(Type.Array(FilterEntry, { maxItems: 64 })),
  document_ids: Type.Optional(Type.Array(FilterEntry, { maxItems: 256 })),
}, { additionalProperties: false });
/** A narrowing of a search. */
export type SearchFilter = Static<typeof SearchFilterSchema>;

/** Body of `POST /v1/knowledge/search`. */
export const SearchRequestSchema = Type.Object({
  tenant_id: Type.Optional(Type.String({ maxLength: 256 })),
  query: Type.String({ minLength: 1, maxLength: 8000 }),
  /** 1-100, default 10. */
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
  /** Override of SEARCH_SCORE_THRESHOLD for this call (0-1). */
  score_threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  /** Default true: one result per document (its best chunk). */
  group_by_document: Type.Optional(Type.Boolean()),
  /** Search only documents matching this filter (within the caller's visibility; issue 17 item 1). */
  filter: Type.Optional(SearchFilterSchema),
});
/** Body of `POST /v1/knowledge/search`. */
export type SearchRequest = Static<typeof SearchRequestSchema>;

/** One search result (spec "Search result"), plus governance hints. */
export const SearchResultSchema = Type.Object({
  content: Type.String(),
  /** Document id. */
  source: Type.String(),
  document_id: Type.String(),
  /** Normalised 0-1 (see docs/decisions-knowledge.md "Scores"). */
  score: Type.Number(),
  document_title: Type.String(),
  chunk_index: Type.Integer(),
  heading: NullableString,
  /** Which retrievers found the chunk, at which rank, and how they were fused. */
  retrieval_rationale: Type.String(),
});
/** One search result. */
export type SearchResult = Static<typeof SearchResultSchema>;

/** Which retrievers answered a search, and why dense retrieval did not (the embedder's own reason, which names folders, for admins only; issue 11 item 9). */
export const RetrievalSchema = Type.Object({ sparse: Type.Boolean(), dense: Type.Boolean(), dense_reason: NullableString });

/** 200 body of `POST /v1/knowledge/search`. */
export const SearchResponseSchema = Type.Object({ results: Type.Array(SearchResultSchema), retrieval: RetrievalSchema });
/** 200 body of `POST /v1/knowledge/search`. */
export type SearchResponse = Static<typeof SearchResponseSchema>;

/**
 * The embedder's status (services/embedder/src/contracts.ts `EmbedderStatus`): as it is for admins;
 * for anyone else without the model folder (`path: null`) and with a reason that names no directory
 * (`embedderStatusFor`, issue 11 item 9).
 */
export const EmbedderStatusSchema = Type.Object({
  state: StringEnum(['loading', 'ready', 'unavailable', 'failed']),
  model: NullableString,
  path: NullableString,
  dims: Type.Integer(),
  file: NullableString,
  reason: NullableString,
  texts_embedded: Type.Integer(),
}, { additionalProperties: true });

/** `GET /v1/knowledge/status`: retrieval modes, counts and re-embedding progress. */
export const KnowledgeStatusSchema = Type.Object({
  sparse_enabled: Type.Boolean(),
  dense_enabled: Type.Boolean(),
  /** Plain words for the UI: why dense retrieval is off, when it is (folders and load errors for admins only). */
  dense_reason: NullableString,
  embedder: EmbedderStatusSchema,
  chunks: Type.Integer(),
  chunks_pending_vectors: Type.Integer(),
  /** Progress of the re-embedding after an EMBEDDING_DIMS change, or null. */
  reembedding: Type.Union([Type.Object({ running: Type.Boolean(), done: Type.Integer(), total: Type.Integer() }), Type.Null()]),
  score_threshold: Type.Number(),
});
/** `GET /v1/knowledge/status`. */
export type KnowledgeStatus = Static<typeof KnowledgeStatusSchema>;
