/**
 * Ingestion contracts (spec "Knowledge": `POST /v1/knowledge/ingest`, `/ingest/text`,
 * `/ingest/batch`; `GET /v1/knowledge/jobs/:job_id`).
 *
 * The file and text routes take multipart (the text route also urlencoded or JSON) and are parsed
 * by the route itself, so they declare no body schema; their answers are `IngestResult`.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { DocumentStatusSchema, StringEnum, NullableString, OpenObject, VisibilityModeSchema, VisibilityRequestFields } from './common.js';

/**
 * 201 body of the file and text ingest routes; also their 202 body while the parse still runs in
 * the background (`status: indexing`, `chunks_indexed: 0`; the document detail follows it to
 * `indexed` or `failed` with `last_error`).
 */
export const IngestResultSchema = Type.Object({
  document_id: Type.String(),
  /** Same as `document_id` (spec "Item metadata"). */
  knowledge_item_id: Type.String(),
  title: Type.String(),
  chunks_indexed: Type.Integer(),
  /** `indexing` while the parse or the vectors are still being made, else `indexed` (or `failed`). */
  status: DocumentStatusSchema,
  visibility_mode: VisibilityModeSchema,
});
/** 201 body of the file and text ingest routes. */
export type IngestResult = Static<typeof IngestResultSchema>;

/** One record of a batch: a title, its content and free-form metadata (`metadata.tags` become item tags). */
export const BatchRecordSchema = Type.Object({
  title: Type.String({ maxLength: 2000 }),
  content: Type.String(),
  metadata: Type.Optional(OpenObject),
});

/** Body of `POST /v1/knowledge/ingest/batch`. */
export const BatchIngestRequestSchema = Type.Object({
  ...VisibilityRequestFields,
  tags: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 })),
  records: Type.Array(BatchRecordSchema, { minItems: 1, maxItems: 100_000 }),
});
/** Body of `POST /v1/knowledge/ingest/batch`. */
export type BatchIngestRequest = Static<typeof BatchIngestRequestSchema>;

/** 201 body of the batch route. Sparse search covers the documents at once; vectors follow (job). */
export const BatchIngestResultSchema = Type.Object({
  batch_id: Type.String(),
  /** Same as `batch_id`: progress at `GET /v1/knowledge/jobs/:job_id`. */
  job_id: Type.String(),
  documents_indexed: Type.Integer(),
  chunks_indexed: Type.Integer(),
  /** Records refused (empty title or content), by index in `records`. */
  failed: Type.Array(Type.Object({ index: Type.Integer(), error: Type.String() })),
  documents: Type.Array(Type.Object({ document_id: Type.String(), title: Type.String(), chunks_indexed: Type.Integer() })),
  visibility_mode: VisibilityModeSchema,
  owner_user_id: Type.String(),
  /** `pending`: vectors follow in the background; `disabled`: no model. */
  dense: StringEnum(['pending', 'done', 'disabled']),
});
/** 201 body of the batch route. */
export type BatchIngestResult = Static<typeof BatchIngestResultSchema>;

/** `:job_id` path parameter. */
export const JobIdParamsSchema = Type.Object({ job_id: Type.String({ maxLength: 64 }) });

/** Progress of a long job (batch ingest, re-embed). `progress` is `done / total` in [0, 1]. */
export const JobViewSchema = Type.Object({
  job_id: Type.String(),
  /** `batch_ingest` | `reembed`. */
  kind: Type.String(),
  status: StringEnum(['running', 'done', 'failed', 'cancelled']),
  done: Type.Integer(),
  total: Type.Integer(),
  progress: Type.Number(),
  error: NullableString,
  created_at: Type.String(),
  updated_at: Type.String(),
  /** Batch jobs while running: chunks of the batch, and how many have vectors. */
  chunks_total: Type.Optional(Type.Integer()),
  chunks_embedded: Type.Optional(Type.Integer()),
});
/** Progress of a long job. */
export type JobView = Static<typeof JobViewSchema>;

/** `GET /v1/knowledge/jobs?limit=` query (1-200, default 50). */
export const JobListQuerySchema = Type.Object({ tenant_id: Type.Optional(Type.String()), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) });
/** `GET /v1/knowledge/jobs` answer: the newest jobs first. */
export const JobListSchema = Type.Object({ jobs: Type.Array(JobViewSchema) });
