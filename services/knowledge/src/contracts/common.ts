/**
 * Shared pieces of the knowledge contracts: settings, runtime seams, the error table, visibility
 * modes, tags and the path / query schemas several routes use. Node-free (issue 10 "contracts.ts
 * is the one door").
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { OrNull, StringEnum } from '../../../shared/kit/schema.js';
import type { CommonServiceConfig } from '../../../shared/config.js';
import type { CommonErrorCode, ErrorTable } from '../../../shared/kit/domain-error.js';
import type { Embedder } from '../../../embedder/src/contracts.js';

/** Roles that see and manage every item of the tenant (spec "Knowledge" visibility table). */
export const ADMIN_ROLES: readonly string[] = ['admin', 'tenant_admin', 'platform_admin'];

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
  /** Most bytes a DOCX may expand to when unpacked (KNOWLEDGE_MAX_EXPANDED_BYTES; issue 11 item 5). */
  maxExpandedBytes: number;
  /** Most pages of a PDF (KNOWLEDGE_MAX_PDF_PAGES). */
  maxPdfPages: number;
  /** Most characters of text a document may hold (KNOWLEDGE_MAX_TEXT_CHARS). */
  maxTextChars: number;
  /** Most chunks of one document (KNOWLEDGE_MAX_CHUNKS_PER_DOCUMENT). */
  maxChunksPerDocument: number;
  /** Wall time one document's parse may take, ms (KNOWLEDGE_PARSE_TIMEOUT_MS). */
  parseTimeoutMs: number;
  /** Heap of the worker that parses one document, MB (KNOWLEDGE_PARSE_MEMORY_MB). */
  parseMemoryMb: number;
  /** Documents parsed at the same time, each in its own worker thread (KNOWLEDGE_PARSE_CONCURRENCY). */
  parseConcurrency: number;
  /** How long an upload's answer waits for its parse before answering 202 `indexing`, ms (KNOWLEDGE_INGEST_WAIT_MS). */
  ingestWaitMs: number;
}

/** The knowledge service's config slice. */
export type KnowledgeConfig = CommonServiceConfig & KnowledgeSettings;

/** What a host or test may hand `start(cfg, runtime)` beside the config. */
export interface KnowledgeRuntime {
  /** Injected embedder (tests, benchmarks); default: the worker-thread embedder over `cfg.modelDirs`. */
  embedder?: Embedder;
  /** Emit turn events to audit (default true). */
  events?: boolean;
}

/**
 * Error codes of the knowledge service and their HTTP statuses, beside the common ones
 * (`invalid_request`, `not_found`, `admin_required`, `payload_too_large`, `unsupported_media_type`, ...).
 * Every error body is `{error, code}`; `ingestion_failed` adds `document_id`, `document_limit_exceeded` `document_id` and `limit`.
 *
 * | code | status | when |
 * |---|---|---|
 * | `ingestion_failed` | 422 | the file could not be parsed; the document keeps `last_error` |
 * | `document_limit_exceeded` | 422 | a document limit refused the document (issue 11 item 5); it is `failed` with `last_error`, the body adds `document_id` and `limit` (the setting) |
 * | `unsupported_format` | 415 | the upload is not PDF, DOCX, HTML, Markdown, text or CSV |
 * | `confirm_tenant_wide_required` | 400 | a shared item without audiences needs `confirm_tenant_wide: true` |
 * | `owner_forbidden` | 403 | only admins make another user the owner of an item |
 * | `not_owner` | 403 | a change of an item the caller may read but not manage |
 * | `wiki_topic_conflict` | 409 | the topic belongs to a page the caller cannot change |
 * | `job_not_found` | 404 | no such job, or not the caller's |
 * | `service_account_required` | 403 | an internal route called by anyone but the agent runtime's service principal |
 */
export const KNOWLEDGE_ERRORS = {
  ingestion_failed: 422,
  document_limit_exceeded: 422,
  unsupported_format: 415,
  confirm_tenant_wide_required: 400,
  owner_forbidden: 403,
  not_owner: 403,
  wiki_topic_conflict: 409,
  job_not_found: 404,
  service_account_required: 403,
} as const satisfies ErrorTable;

/** A code of `KNOWLEDGE_ERRORS`, or a common one. */
export type KnowledgeErrorCode = keyof typeof KNOWLEDGE_ERRORS | CommonErrorCode;

export { StringEnum };

/** Visibility modes of an item (spec "Knowledge" visibility table). */
export const VISIBILITY_MODES = ['private', 'shared', 'restricted'] as const;

/** Visibility of an item: `private` (owner, admins), `shared` (tenant or its audiences), `restricted` (grants, audiences). */
export const VisibilityModeSchema = StringEnum(VISIBILITY_MODES);
/** Visibility of an item (spec visibility table). */
export type VisibilityMode = Static<typeof VisibilityModeSchema>;

/** Shape of an audience or item tag: letters, digits, `. _ : -`, at most 64 characters. */
export const TAG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** Indexing state of a document. */
export const DocumentStatusSchema = StringEnum(['indexing', 'indexed', 'failed']);
/** Indexing state of a document. */
export type DocumentStatus = Static<typeof DocumentStatusSchema>;

/** A string or null. */
export const NullableString = OrNull(Type.String());

/** An open JSON object (free-form metadata). */
export const OpenObject = Type.Record(Type.String(), Type.Unknown());

/** `tenant_id` is accepted in every query and ignored (the principal's pinned tenant rules). */
export const TenantQuerySchema = Type.Object({ tenant_id: Type.Optional(Type.String()) });

/** `:document_id` path parameter. */
export const DocumentIdParamsSchema = Type.Object({ document_id: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * The visibility fields a batch ingest and a document patch both take (spec "Knowledge" visibility
 * table), in this order: `tenant_id`, `visibility_mode`, `audience_tags`, `user_grants`,
 * `owner_user_id`, `confirm_tenant_wide`.
 */
export const VisibilityRequestFields = {
  tenant_id: Type.Optional(Type.String({ maxLength: 256 })),
  visibility_mode: Type.Optional(VisibilityModeSchema),
  audience_tags: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 })),
  user_grants: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 10_000 })),
  owner_user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  confirm_tenant_wide: Type.Optional(Type.Boolean()),
};
