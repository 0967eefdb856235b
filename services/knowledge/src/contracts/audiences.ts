/** Audience contracts (spec "Knowledge": audience routes). Audiences are tenant-local groups. */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { NullableString } from './common.js';

/** An audience (tenant-local group) with its member count. */
export const AudienceSchema = Type.Object({
  tag: Type.String(),
  description: NullableString,
  created_at: Type.String(),
  updated_at: Type.String(),
  member_count: Type.Integer(),
});
/** An audience. */
export type Audience = Static<typeof AudienceSchema>;

/** `GET /v1/knowledge/admin/audiences`, by tag. */
export const AudienceListSchema = Type.Object({ items: Type.Array(AudienceSchema) });

/** `:audience_tag` path parameter (its shape is checked by the domain: 400 naming `params.audience_tag`). */
export const AudienceTagParamsSchema = Type.Object({ audience_tag: Type.String({ minLength: 1, maxLength: 64 }) });

/** Body of `PUT /v1/knowledge/admin/audiences/:tag`: optional, may be JSON `null`. */
export const AudienceUpsertRequestSchema = Type.Unsafe<{ tenant_id?: string; description?: string | null } | null>({
  type: ['object', 'null'],
  properties: { tenant_id: { type: 'string' }, description: { type: ['string', 'null'], maxLength: 2000 } },
});

/** Body of `PUT /v1/knowledge/admin/audiences/:tag/members`: the full member list (replaces it). */
export const AudienceMembersRequestSchema = Type.Object({
  tenant_id: Type.Optional(Type.String()),
  audience_tag: Type.Optional(Type.String()),
  user_ids: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 100_000 }),
});
/** Body of `PUT /v1/knowledge/admin/audiences/:tag/members`. */
export type AudienceMembersRequest = Static<typeof AudienceMembersRequestSchema>;

/** 200 of `PUT .../members`: the audience and its members, sorted. */
export const AudienceWithMembersSchema = Type.Object({ ...AudienceSchema.properties, user_ids: Type.Array(Type.String()) });

/** 200 of `GET .../members`. */
export const AudienceMembersSchema = Type.Object({ tag: Type.String(), user_ids: Type.Array(Type.String()) });
/** An audience's members. */
export type AudienceMembers = Static<typeof AudienceMembersSchema>;
