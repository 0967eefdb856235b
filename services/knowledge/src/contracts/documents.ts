/**
 * Document contracts (spec "Knowledge": list, detail, content, reindex, delete; plus change,
 * archive and restore). List and detail carry the governance fields of the spec.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { OrNull } from '../../../shared/kit/schema.js';
import { DocumentStatusSchema, StringEnum, NullableString, OpenObject, VisibilityModeSchema, VisibilityRequestFields } from './common.js';

const documentViewFields = {
  document_id: Type.String(),
  knowledge_item_id: Type.String(),
  title: Type.String(),
  source_type: StringEnum(['file', 'text', 'batch']),
  filename: NullableString,
  mime_type: NullableString,
  /** Size of the upload or text, bytes. */
  bytes: OrNull(Type.Integer()),
  status: DocumentStatusSchema,
  chunks_indexed: Type.Integer(),
  chunks_embedded: Type.Integer(),
  owner_user_id: Type.String(),
  creator_user_id: Type.String(),
  visibility_mode: VisibilityModeSchema,
  audience_tags: Type.Array(Type.String()),
  user_grants: Type.Array(Type.String()),
  tags: Type.Array(Type.String()),
  metadata: OpenObject,
  archived_at: NullableString,
  last_error: NullableString,
  batch_id: NullableString,
  created_at: Type.String(),
  updated_at: Type.String(),
};

/** A document as list and detail show it (governance fields of the spec). */
export const DocumentViewSchema = Type.Object(documentViewFields);
/** A document as list and detail show it. */
export type DocumentView = Static<typeof DocumentViewSchema>;

/** A chunk preview of the detail: its first 200 characters and its length. */
export const ChunkPreviewSchema = Type.Object({
  chunk_index: Type.Integer(),
  heading: NullableString,
  chars: Type.Integer(),
  preview: Type.String(),
});

/** `GET /v1/knowledge/documents/:id` (and the answer of PATCH): the document plus chunk previews. */
export const DocumentDetailSchema = Type.Object({ ...documentViewFields, chunks: Type.Array(ChunkPreviewSchema) });
/** A document with its chunk previews. */
export type DocumentDetail = Static<typeof DocumentDetailSchema>;

/** `GET /v1/knowledge/documents` query: newest first, keyset cursor. */
export const DocumentListQuerySchema = Type.Object({
  tenant_id: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  /** Default `exclude`. */
  archived: Type.Optional(StringEnum(['exclude', 'include', 'only'])),
  status: Type.Optional(DocumentStatusSchema),
  /** Substring of the title. */
  q: Type.Optional(Type.String({ maxLength: 200 })),
});
/** `GET /v1/knowledge/documents` query. */
export type DocumentListQuery = Static<typeof DocumentListQuerySchema>;

/** `GET /v1/knowledge/documents`: a page; pass `next_cursor` as `cursor` for the next one. */
export const DocumentPageSchema = Type.Object({ items: Type.Array(DocumentViewSchema), next_cursor: Type.Optional(Type.String()) });
/** A page of documents. */
export type DocumentPage = Static<typeof DocumentPageSchema>;

/** `GET /v1/knowledge/documents/:id/content` query: `format=original` streams the stored upload. */
export const DocumentContentQuerySchema = Type.Object({
  tenant_id: Type.Optional(Type.String()),
  format: Type.Optional(StringEnum(['text', 'original'])),
});

/** `GET /v1/knowledge/documents/:id/content`: the extracted text. */
export const DocumentContentSchema = Type.Object({
  document_id: Type.String(),
  title: Type.String(),
  mime_type: NullableString,
  content: Type.String(),
});
/** The extracted text of a document. */
export type DocumentContent = Static<typeof DocumentContentSchema>;

/**
 * Body of `PATCH /v1/knowledge/documents/:id`: change visibility, owner or title after upload, with
 * the batch route's rules. When `visibility_mode` is given, the visibility set is replaced
 * (`audience_tags` / `user_grants` absent from the body become empty); without it, absent lists keep
 * their current values. A result that is tenant-wide `shared` needs `confirm_tenant_wide: true`
 * unless the document already was tenant-wide. Unknown fields are refused.
 */
export const DocumentPatchRequestSchema = Type.Object({
  ...VisibilityRequestFields,
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
}, { additionalProperties: false });
/** Body of `PATCH /v1/knowledge/documents/:id`. */
export type DocumentPatchRequest = Static<typeof DocumentPatchRequestSchema>;

/** `POST /v1/knowledge/documents/:id/reindex`: the state after re-extraction and re-chunking. */
export const ReindexResultSchema = Type.Object({
  document_id: Type.String(),
  status: DocumentStatusSchema,
  chunks_indexed: Type.Integer(),
  last_error: NullableString,
});
/** State after a reindex. */
export type ReindexResult = Static<typeof ReindexResultSchema>;

/** `DELETE /v1/knowledge/documents/:id`. */
export const DocumentDeletedSchema = Type.Object({ document_id: Type.String(), deleted: Type.Literal(true) });
