/**
 * Permission profiles pushed by the agent runtime (issue 13 item 8; spec "Roles and groups" 4):
 * `PUT /v1/internal/knowledge/access-profiles` (the principal `service:agent-runtime` only) replaces
 * the tenant's list. A profile applies to a caller whose roles or groups intersect its own; a caller
 * to whom a profile naming `knowledge` applies reads, beyond their own items, only items carrying
 * one of the named `tags` or shared with one of the named `audiences` (search, lists, documents,
 * wiki); `*` lifts the narrowing; admins are never narrowed.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';

/** An entry of a profile list (role, group, audience or tag). */
const Entry = Type.String({ minLength: 1, maxLength: 128 });
const Entries = Type.Array(Entry, { maxItems: 200 });

/** One profile as the runtime pushes it. */
export const AccessProfileInputSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  roles: Entries,
  groups: Entries,
  knowledge: Type.Object({ audiences: Type.Optional(Entries), tags: Type.Optional(Entries) }),
}, { additionalProperties: true });
/** One profile as the runtime pushes it. */
export type AccessProfileInput = Static<typeof AccessProfileInputSchema>;

/** Body of `PUT /v1/internal/knowledge/access-profiles`: the tenant's whole list. */
export const AccessProfilesPutSchema = Type.Object({
  profiles: Type.Array(AccessProfileInputSchema, { maxItems: 1000 }),
});
/** Body of `PUT /v1/internal/knowledge/access-profiles`. */
export type AccessProfilesPut = Static<typeof AccessProfilesPutSchema>;

/** 200 body of `PUT /v1/internal/knowledge/access-profiles`. */
export const AccessProfilesSyncedSchema = Type.Object({ count: Type.Integer(), synced_at: Type.String() });
/** 200 body of `PUT /v1/internal/knowledge/access-profiles`. */
export type AccessProfilesSynced = Static<typeof AccessProfilesSyncedSchema>;
