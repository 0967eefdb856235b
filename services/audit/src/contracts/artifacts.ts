/**
 * Artifact and replay route shapes (spec "Audit and receipts"): `POST /v1/audit/artifacts`,
 * `GET /v1/audit/turns/:turn_id/replay`, `GET /v1/audit/turns/:turn_id/artifacts/:event_id/:kind`.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { ReceiptObjectSchema, LeafEventSchema } from './receipt-format.js';

/** Largest artifact upload body, bytes (base64 of a 32 MiB body fits). */
export const ARTIFACT_BODY_LIMIT = 48 * 1024 * 1024;

/** Artifact kinds: short lowercase names such as `prompt`, `tool_input`, `model_response`. */
export const ARTIFACT_KIND_PATTERN = '^[a-z0-9][a-z0-9_.-]{0,63}$';

const Id = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' });

/** Body of `POST /v1/audit/artifacts`: exactly one of `content` (UTF-8 text) or `content_base64`. */
export const ArtifactUploadRequestSchema = Type.Object({
  turn_id: Id,
  event_id: Id,
  kind: Type.String({ pattern: ARTIFACT_KIND_PATTERN }),
  /** Default `text/plain; charset=utf-8` for `content`, `application/octet-stream` for base64. */
  content_type: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  content: Type.Optional(Type.String()),
  content_base64: Type.Optional(Type.String()),
  /** When given, must equal the sha256 of the body (lowercase hex). */
  sha256: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
});
/** Body of `POST /v1/audit/artifacts`. */
export type ArtifactUploadRequest = Static<typeof ArtifactUploadRequestSchema>;

/** Artifact metadata as answered to clients (201/200 of the upload, `artifacts` of replay events). */
export const ArtifactInfoSchema = Type.Object({
  turn_id: Type.String(),
  event_id: Type.String(),
  kind: Type.String(),
  /** Lowercase hex sha256 of the body. */
  sha256: Type.String(),
  /** Bytes. */
  size: Type.Integer(),
  content_type: Type.String(),
  /** RFC 3339 UTC. */
  created_at: Type.String(),
  /** Where to fetch the body. */
  url: Type.String(),
});
/** Artifact metadata. */
export type ArtifactInfo = Static<typeof ArtifactInfoSchema>;

/** One replay event: the leaf fields, the parsed payload (null when not JSON) and its artifacts. */
export const ReplayEventSchema = Type.Object({
  ...LeafEventSchema.properties,
  payload: Type.Unknown(),
  artifacts: Type.Array(ArtifactInfoSchema),
});
/** One replay event. */
export type ReplayEvent = Static<typeof ReplayEventSchema>;

/** Query of the replay route: `tenant_id` is ignored (the pinned tenant). */
export const ReplayQuerySchema = Type.Object({ tenant_id: Type.Optional(Type.String()) });

/** 200 body of `GET /v1/audit/turns/:turn_id/replay`. */
export const ReplayResponseSchema = Type.Object({
  turn_id: Type.String(),
  tenant_id: Type.String(),
  receipt: ReceiptObjectSchema,
  events: Type.Array(ReplayEventSchema),
});
/** 200 body of the replay route. */
export type ReplayResponse = Static<typeof ReplayResponseSchema>;

/** Path parameters of `GET /v1/audit/turns/:turn_id/artifacts/:event_id/:kind`. */
export const ArtifactParamsSchema = Type.Object({
  turn_id: Type.String({ maxLength: 128 }),
  event_id: Type.String({ maxLength: 128 }),
  kind: Type.String({ maxLength: 64 }),
});
/** Path parameters of the artifact body route. */
export type ArtifactParams = Static<typeof ArtifactParamsSchema>;

/** 200 of the artifact body route: the stored bytes, with their content type and `x-content-sha256`. */
export const ArtifactBodySchema = Type.Unsafe<unknown>({ type: 'string', description: 'the artifact bytes (streamed, not JSON)' });
