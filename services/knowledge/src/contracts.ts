/**
 * Public surface of the knowledge service (spec "Knowledge"; DESIGN.md "Inside a service"): the one
 * door other services and the renderer import. TypeBox request and response schemas live in
 * `contracts/*.ts` (by route group) and are re-exported here with the types derived from them, the
 * error table and the settings. Node-free.
 *
 * Routes (all need a gateway-stamped principal; `tenant_id` in bodies and queries is accepted and
 * ignored: the tenant is the principal's, pinned by the gateway):
 * - `POST /v1/knowledge/ingest` multipart `file`, `title?`, `tenant_id?` -> 201 `IngestResult` (private item);
 *   202 `IngestResult` with `status: indexing` when the parse (a worker thread) outlasts KNOWLEDGE_INGEST_WAIT_MS;
 *   400 no file, 413 too large, 415 unsupported format, 422 `ingestion_failed` `{error, code, document_id}`,
 *   422 `document_limit_exceeded` `{error, code, document_id, limit}` (issue 11 item 5)
 * - `POST /v1/knowledge/ingest/text` multipart (or JSON) `title`, `content` -> 201 `IngestResult` (private item);
 *   202 and 422 as the file route
 * - `POST /v1/knowledge/ingest/batch` JSON `BatchIngestRequest` -> 201 `BatchIngestResult`;
 *   400 `confirm_tenant_wide_required` for a tenant-wide shared batch without the flag, 403 `owner_forbidden`
 * - `GET /v1/knowledge/jobs/:job_id` -> 200 `JobView` (progress of batch, reindex and re-embed jobs)
 * - `POST /v1/knowledge/search` `SearchRequest` -> 200 `{results: SearchResult[], retrieval}`
 * - `GET /v1/knowledge/documents?limit&cursor&archived=exclude|include|only&status&q` -> 200 `{items: DocumentView[], next_cursor?}`
 * - `GET /v1/knowledge/documents/:id` -> 200 `DocumentView & {chunks: [...]}`; 404 when absent or not visible
 * - `GET /v1/knowledge/documents/:id/content` -> 200 `{document_id, title, mime_type, content}`; `?format=original` streams the upload
 * - `POST /v1/knowledge/documents/:id/reindex` -> 200 `ReindexResult` (owner or admin)
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
 * - `PUT /v1/internal/knowledge/access-profiles` `AccessProfilesPut` (the agent runtime's service principal only) -> 200
 *   `AccessProfilesSynced`; 403 `service_account_required` for anyone else (issue 13 item 8)
 */
export * from './contracts/common.js';
export * from './contracts/ingest.js';
export * from './contracts/documents.js';
export * from './contracts/search.js';
export * from './contracts/wiki.js';
export * from './contracts/audiences.js';
export * from './contracts/access.js';
