/**
 * Roles and permission profiles (issue 13 item 8; spec "Roles and groups", "Agent runtime surfaces":
 * `/v1/admin/roles`). A permission profile names `roles` and `groups`; it applies to a caller whose
 * roles or groups intersect them, and a caller's effective access is the union of the profiles that
 * apply. It decides which agents, tools and knowledge a group may use:
 * - `tools`: tool names, `prefix*` globs or `*`. When at least one applying profile names tools,
 *   only the union is offered (`GET /v1/tools` and the chat's tool list); no such profile = every tool.
 * - `agents`: agent ids, `prefix*` or `*`: a chat naming another agent is refused 403 `agent_not_allowed`.
 * - `knowledge`: `{audiences?, tags?}`: beyond their own items, a caller reads (searches, lists, opens,
 *   and the chat grounds on) only items carrying one of the tags or shared with one of the audiences;
 *   admins are never narrowed. The knowledge service applies it from a copy the runtime pushes.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { OrNull, Timestamp } from './atoms.js';

/** The fixed account roles (services/shared/identity/principal-types.ts `ACCOUNT_ROLES`) with what each grants. */
export const ROLE_DESCRIPTIONS = [
  { role: 'user', description: 'Chat, own sessions, approvals, knowledge and memory of their own; the role every account holds.' },
  { role: 'admin', description: 'The admin surfaces (/v1/admin/*): providers and roles, users, policies, audit, mission control.' },
  { role: 'tenant_admin', description: 'Sees and manages every knowledge item and memory of the tenant (knowledge and memory surfaces only).' },
  { role: 'platform_admin', description: 'Like tenant_admin across the platform (knowledge and memory surfaces only).' },
] as const;

/** A role name, group name, agent id or tool pattern in a profile. */
const Entry = Type.String({ minLength: 1, maxLength: 128, pattern: '^[^\\s,]+$' });
/** A list of entries (at most 200). */
const Entries = Type.Array(Entry, { maxItems: 200 });

/** Knowledge a profile opens: audience tags and document tags. */
export const ProfileKnowledgeSchema = Type.Object({
  audiences: Type.Optional(Entries),
  tags: Type.Optional(Entries),
}, { additionalProperties: false });
/** Knowledge a profile opens. */
export type ProfileKnowledge = Static<typeof ProfileKnowledgeSchema>;

/** Body of `POST /v1/admin/roles/profiles` and `PUT /v1/admin/roles/profiles/{id}` (absent lists = empty). */
export const ProfileInputSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 120 }),
  roles: Type.Optional(Entries),
  groups: Type.Optional(Entries),
  agents: Type.Optional(Entries),
  tools: Type.Optional(Entries),
  knowledge: Type.Optional(ProfileKnowledgeSchema),
}, { additionalProperties: false });
/** A profile as written. */
export type ProfileInput = Static<typeof ProfileInputSchema>;

/** A stored permission profile. */
export const PermissionProfileSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  roles: Type.Array(Type.String()),
  groups: Type.Array(Type.String()),
  agents: Type.Array(Type.String()),
  tools: Type.Array(Type.String()),
  knowledge: Type.Object({ audiences: Type.Optional(Type.Array(Type.String())), tags: Type.Optional(Type.Array(Type.String())) }),
  created_at: Timestamp,
  updated_at: Timestamp,
  updated_by: OrNull(Type.String()),
});
/** A stored permission profile. */
export type PermissionProfile = Static<typeof PermissionProfileSchema>;

/** `GET /v1/admin/roles/profiles`. */
export const ProfileListSchema = Type.Object({ items: Type.Array(PermissionProfileSchema) });
/** `GET /v1/admin/roles/profiles`. */
export type ProfileList = Static<typeof ProfileListSchema>;

/** `GET /v1/admin/roles`: the fixed roles, the group -> role map the runtime was given, and the profiles. */
export const RolesViewSchema = Type.Object({
  items: Type.Array(Type.Object({ role: Type.String(), description: Type.String() })),
  /** SVC_GROUP_ROLE_MAP as parsed (groups add roles, never remove them); null when not set. */
  group_role_map: OrNull(Type.Record(Type.String(), Type.Array(Type.String()))),
  /** Where a caller's groups come from: the signed principal's `groups`. */
  groups_source: Type.String(),
  profiles: Type.Array(PermissionProfileSchema),
});
/** `GET /v1/admin/roles`. */
export type RolesView = Static<typeof RolesViewSchema>;

/** Query of `GET /v1/admin/roles/effective`: comma-separated roles and groups. */
export const EffectiveQuerySchema = Type.Object({
  roles: Type.Optional(Type.String({ maxLength: 2000 })),
  groups: Type.Optional(Type.String({ maxLength: 2000 })),
});

/**
 * Effective access of a caller: the applying profiles and the union of what they open. A null list
 * means "not restricted" (no applying profile names any).
 */
export const EffectiveAccessSchema = Type.Object({
  profiles: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
  tools: OrNull(Type.Array(Type.String())),
  agents: OrNull(Type.Array(Type.String())),
  knowledge: Type.Object({ audiences: OrNull(Type.Array(Type.String())), tags: OrNull(Type.Array(Type.String())) }),
  /** What is enforced: `tools` (`GET /v1/tools`, chat), `agents` (chat), `knowledge` (every knowledge read). */
  enforced: Type.Array(Type.String()),
});
/** Effective access of a caller. */
export type EffectiveAccess = Static<typeof EffectiveAccessSchema>;
