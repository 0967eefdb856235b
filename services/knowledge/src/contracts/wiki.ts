/** Wiki contracts (spec "Knowledge": wiki routes; "Wiki page"), with governance fields. */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { StringEnum, VisibilityModeSchema } from './common.js';

/** Body of `POST /v1/knowledge/wiki`: create or update the page of `topic` (a slug, lower-cased). */
export const WikiWriteRequestSchema = Type.Object({
  tenant_id: Type.Optional(Type.String()),
  topic: Type.String({ minLength: 1, maxLength: 128 }),
  title: Type.String({ minLength: 1, maxLength: 500 }),
  summary: Type.Optional(Type.String({ maxLength: 4000 })),
  tags: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 })),
  /** Markdown. */
  content: Type.String({ maxLength: 1_000_000 }),
  visibility_mode: Type.Optional(StringEnum(['private', 'shared', 'restricted'])),
  audience_tags: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
  user_grants: Type.Optional(Type.Array(Type.String(), { maxItems: 10_000 })),
  confirm_tenant_wide: Type.Optional(Type.Boolean()),
});
/** Body of `POST /v1/knowledge/wiki`. */
export type WikiWriteRequest = Static<typeof WikiWriteRequestSchema>;

const wikiSummaryFields = {
  topic: Type.String(),
  title: Type.String(),
  summary: Type.String(),
  tags: Type.Array(Type.String()),
};
const wikiGovernanceFields = {
  owner_user_id: Type.String(),
  visibility_mode: VisibilityModeSchema,
  audience_tags: Type.Array(Type.String()),
  user_grants: Type.Array(Type.String()),
  created_by: Type.String(),
  updated_by: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
};

/** A wiki page (spec "Wiki page") with governance fields: 201 created / 200 updated, and `GET /wiki/:topic`. */
export const WikiPageSchema = Type.Object({ ...wikiSummaryFields, content: Type.String(), ...wikiGovernanceFields });
/** A wiki page. */
export type WikiPage = Static<typeof WikiPageSchema>;

/** A wiki page without its content (list entries). */
export const WikiPageSummarySchema = Type.Object({ ...wikiSummaryFields, ...wikiGovernanceFields });
/** A wiki page without its content. */
export type WikiPageSummary = Static<typeof WikiPageSummarySchema>;

/** `GET /v1/knowledge/wiki`: the pages the caller may read, by topic. */
export const WikiListSchema = Type.Object({ items: Type.Array(WikiPageSummarySchema) });

/** `:topic` path parameter. */
export const TopicParamsSchema = Type.Object({ topic: Type.String({ minLength: 1, maxLength: 128 }) });

/** `DELETE /v1/knowledge/wiki/:topic`. */
export const WikiDeletedSchema = Type.Object({ topic: Type.String(), deleted: Type.Literal(true) });
