/**
 * Public surface of the knowledge service (spec "Knowledge"; DESIGN.md "Inside a service").
 *
 * Routes (all need a gateway-stamped principal; `tenant_id` in bodies and queries is accepted and
 * ignored: the tenant is the principal's, pinned by the gateway):
 * - `POST /v1/knowledge/ingest` multipart `file`, `title?`, `tenant_id?` -> 201 `IngestResult` (private item);
 *   400 no file, 413 too large, 415 unsupported format, 422 `ingestion_failed` `{error, code, document_id}`
 * - `POST /v1/knowledge/ingest/text` multipart (or JSON) `title`, `content` -> 201 `IngestResult` (private item)
 * - `POST /v1/knowledge/ingest/batch` JSON `BatchIngestRequest` -> 201 `BatchIngestResult`;
 *   400 `confirm_tenant_wide_required` for a tenant-wide shared batch without the flag, 403 `owner_forbidden`
 * - `GET /v1/knowledge/jobs/:job_id` -> 200 `JobView` (progress of batch, reindex and re-embed jobs)
 * - `POST /v1/knowledge/search` `SearchRequest` -> 200 `{results: SearchResult[], retrieval}`
 * - `GET /v1/knowledge/documents?limit&cursor&archived=exclude|include|only&status&q` -> 200 `{items: DocumentView[], next_cursor?}`
 * - `GET /v1/knowledge/documents/:id` -> 200 `DocumentView & {chunks: [...]}`; 404 when absent or not visible
 * - `GET /v1/knowledge/documents/:id/content` -> 200 `{document_id, title, mime_type, content}`; `?format=original` streams the upload
 * - `POST /v1/knowledge/documents/:id/reindex` -> 202 `{document_id, status, job_id}` (owner or admin)
 * - `DELETE /v1/knowledge/documents/:id` -> 200 `{document_id, deleted: true}` (owner or admin)
 * - `POST /v1/knowledge/documents/:id/archive` / `/restore` -> 200 `DocumentView` (owner or admin)
 * - `PATCH /v1/knowledge/documents/:id` `DocumentPatchRequest` (owner or admin) -> 200 document detail; 404 when not
 *   visible, 403 `not_owner` when visible only, 403 `owner_forbidden`, 400 `confirm_tenant_wide_required` / `invalid_request`
 * - `POST /v1/knowledge/wiki` `WikiWriteRequest` -> 201 created / 200 updated `WikiPage`; 409 `wiki_topic_conflict`
 * - `GET /v1/knowledge/wiki/:topic` -> 200 `WikiPage`; `GET /v1/knowledge/wiki` -> 200 `{items: WikiPageSummary[]}`;
 *   `DELETE /v1/knowledge/wiki/:topic` -> 200 `{topic, deleted: true}`
 * - `GET /v1/knowledge/admin/audiences` -> 200 `{items: Audience[]}`;
 *   `PUT /v1/knowledge/admin/audiences/:tag` `{description?}` (admin) -> 200 `Audience`;
 *   `PUT /v1/knowledge/admin/audiences/:tag/members` `{user_ids}` (admin) -> 200 `Audience & {user_ids}`;
 *   `GET /v1/knowledge/admin/audiences/:tag/members` (admin) -> 200 `{tag, user_ids}`
 * - `GET /v1/knowledge/status` -> 200 `KnowledgeStatus` (dense on/off and why, counts, re-embedding progress)
 */
import type { CommonServiceConfig } from '../../shared/config.js';
import type { EmbedderStatus } from '../../embedder/src/contracts.js';

/** Settings of main/config/services/knowledge.ts. */
export interface KnowledgeSettings {
  embeddingDims: number;
  modelDirs: string[];
  embeddingModel: string;
  searchScoreThreshold: number;
  sparseEnabled: boolean;
  maxUploadBytes: number;
  chunkChars: number;
  chunkOverlapChars: number;
  llmModel: string;
}

/** The knowledge service's config slice. */
export type KnowledgeConfig = CommonServiceConfig & KnowledgeSettings;

/** Visibility of an item (spec visibility table). */
export type VisibilityMode = 'private' | 'shared' | 'restricted';

/** Error codes beyond the shared ones. */
export type KnowledgeErrorCode =
  | 'ingestion_failed'              // 422: the file could not be parsed; the document keeps last_error
  | 'unsupported_format'            // 415
  | 'confirm_tenant_wide_required'  // 400: shared batch without audiences needs confirm_tenant_wide
  | 'owner_forbidden'               // 403: only admins ingest for another owner
  | 'not_owner'                     // 403: change of an item the caller may read but not manage
  | 'wiki_topic_conflict'           // 409: the topic belongs to a page the caller cannot change
  | 'job_not_found';

/** 201 body of the file and text ingest routes. */
export interface IngestResult {
  document_id: string;
  knowledge_item_id: string;
  title: string;
  chunks_indexed: number;
  status: 'indexing' | 'indexed' | 'failed';
  visibility_mode: VisibilityMode;
}

/** Body of `POST /v1/knowledge/ingest/batch`. */
export interface BatchIngestRequest {
  tenant_id?: string;
  visibility_mode?: VisibilityMode;
  audience_tags?: string[];
  user_grants?: string[];
  owner_user_id?: string;
  confirm_tenant_wide?: boolean;
  tags?: string[];
  records: Array<{ title: string; content: string; metadata?: Record<string, unknown> }>;
}

/**
 * Body of `PATCH /v1/knowledge/documents/:id`: change visibility, owner or title after upload, with
 * the batch route's rules. When `visibility_mode` is given, the visibility set is replaced
 * (`audience_tags` / `user_grants` absent from the body become empty); without it, absent lists keep
 * their current values. A result that is tenant-wide `shared` needs `confirm_tenant_wide: true`
 * unless the document already was tenant-wide.
 */
export interface DocumentPatchRequest {
  tenant_id?: string;
  visibility_mode?: VisibilityMode;
  audience_tags?: string[];
  user_grants?: string[];
  owner_user_id?: string;
  confirm_tenant_wide?: boolean;
  title?: string;
}

/** 201 body of the batch route. Sparse search covers the documents at once; vectors follow (job). */
export interface BatchIngestResult {
  batch_id: string;
  job_id: string;
  documents_indexed: number;
  chunks_indexed: number;
  failed: Array<{ index: number; error: string }>;
  documents: Array<{ document_id: string; title: string; chunks_indexed: number }>;
  visibility_mode: VisibilityMode;
  owner_user_id: string;
  dense: 'pending' | 'done' | 'disabled';
}

/** Progress of a long job. */
export interface JobView {
  job_id: string;
  kind: string;
  status: 'running' | 'done' | 'failed';
  done: number;
  total: number;
  progress: number;
  error: string | null;
  created_at: string;
  updated_at: string;
  chunks_total?: number;
  chunks_embedded?: number;
}

/** Body of `POST /v1/knowledge/search`. */
export interface SearchRequest {
  tenant_id?: string;
  query: string;
  /** 1-100, default 10. */
  limit?: number;
  /** Override of SEARCH_SCORE_THRESHOLD for this call (0-1). */
  score_threshold?: number;
  /** Default true: one result per document (its best chunk). */
  group_by_document?: boolean;
}

/** One search result (spec "Search result"), plus governance hints. */
export interface SearchResult {
  content: string;
  /** Document id. */
  source: string;
  document_id: string;
  /** Normalised 0-1 (see docs/decisions-knowledge.md "Scores"). */
  score: number;
  document_title: string;
  chunk_index: number;
  heading: string | null;
  retrieval_rationale: string;
}

/** Document as list and detail show it (governance fields of the spec). */
export interface DocumentView {
  document_id: string;
  knowledge_item_id: string;
  title: string;
  source_type: 'file' | 'text' | 'batch';
  filename: string | null;
  mime_type: string | null;
  bytes: number | null;
  status: 'indexing' | 'indexed' | 'failed';
  chunks_indexed: number;
  chunks_embedded: number;
  owner_user_id: string;
  creator_user_id: string;
  visibility_mode: VisibilityMode;
  audience_tags: string[];
  user_grants: string[];
  tags: string[];
  metadata: Record<string, unknown>;
  archived_at: string | null;
  last_error: string | null;
  batch_id: string | null;
  created_at: string;
  updated_at: string;
}

/** Body of `POST /v1/knowledge/wiki`. */
export interface WikiWriteRequest {
  tenant_id?: string;
  topic: string;
  title: string;
  summary?: string;
  tags?: string[];
  content: string;
  visibility_mode?: VisibilityMode;
  audience_tags?: string[];
  user_grants?: string[];
  confirm_tenant_wide?: boolean;
}

/** A wiki page (spec "Wiki page") with governance fields. */
export interface WikiPage {
  topic: string; title: string; summary: string; tags: string[]; content: string;
  owner_user_id: string; visibility_mode: VisibilityMode; audience_tags: string[]; user_grants: string[];
  created_by: string; updated_by: string; created_at: string; updated_at: string;
}

/** Audience (tenant-local group). */
export interface Audience { tag: string; description: string | null; member_count: number; created_at: string; updated_at: string }

/** `GET /v1/knowledge/status`. */
export interface KnowledgeStatus {
  sparse_enabled: boolean;
  dense_enabled: boolean;
  /** Plain words for the UI: why dense retrieval is off, when it is. */
  dense_reason: string | null;
  embedder: EmbedderStatus;
  chunks: number;
  chunks_pending_vectors: number;
  reembedding: { running: boolean; done: number; total: number } | null;
  score_threshold: number;
}
