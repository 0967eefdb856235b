/**
 * The visibility draft of the upload form and the document editor, as plain functions (spec
 * visibility table): who may manage a document, the draft of an existing one, the draft resolved to
 * the lists the service takes and what still blocks it, and the `PATCH` body. Unit-tested in Node
 * (test/unit/renderer).
 */
import { ADMIN_ROLES, TAG_PATTERN, type DocumentPatchRequest, type DocumentView, type ProfileView, type VisibilityMode } from '../api/types';

/** True when `me` may change `d` (its owner, or an administrator). */
export function canManage(me: ProfileView | undefined, d: Pick<DocumentView, 'owner_user_id'>): boolean {
  return Boolean(me && (me.id === d.owner_user_id || me.roles.some((r) => ADMIN_ROLES.includes(r))));
}

/** Split a comma or space separated list, trimmed, duplicates and empties dropped. */
export function splitList(s: string): string[] {
  return [...new Set(s.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean))];
}

/** What the form holds. */
export interface VisibilityDraft { visibility: VisibilityMode; tags: string[]; newTags: string; grants: string; confirm: boolean }

/** The draft of a new upload: private. */
export const PRIVATE_DRAFT: VisibilityDraft = { visibility: 'private', tags: [], newTags: '', grants: '', confirm: false };

/** The draft of an existing document. */
export function draftOf(d: Pick<DocumentView, 'visibility_mode' | 'audience_tags' | 'user_grants'>): VisibilityDraft {
  return { visibility: d.visibility_mode, tags: d.audience_tags, newTags: '', grants: d.user_grants.join(', '), confirm: d.visibility_mode === 'shared' && d.audience_tags.length === 0 };
}

/** The draft resolved: lists as the service takes them, and what still blocks it. */
export function resolveDraft(v: VisibilityDraft): {
  audienceTags: string[]; userGrants: string[]; needsConfirm: boolean; restrictedEmpty: boolean; badTags: string[]; blocked: boolean;
} {
  const audienceTags = v.visibility === 'private' ? [] : [...new Set([...v.tags, ...splitList(v.newTags)])];
  const userGrants = v.visibility === 'restricted' ? splitList(v.grants) : [];
  const needsConfirm = v.visibility === 'shared' && audienceTags.length === 0;
  const restrictedEmpty = v.visibility === 'restricted' && audienceTags.length === 0 && userGrants.length === 0;
  const badTags = audienceTags.filter((t) => !TAG_PATTERN.test(t));
  return { audienceTags, userGrants, needsConfirm, restrictedEmpty, badTags, blocked: (needsConfirm && !v.confirm) || restrictedEmpty || badTags.length > 0 };
}

/** The PATCH body of a draft (the visibility set is replaced as a whole). */
export function patchOf(v: VisibilityDraft): DocumentPatchRequest {
  const r = resolveDraft(v);
  return {
    visibility_mode: v.visibility,
    ...(v.visibility === 'private' ? {} : { audience_tags: r.audienceTags }),
    ...(v.visibility === 'restricted' ? { user_grants: r.userGrants } : {}),
    ...(r.needsConfirm && v.confirm ? { confirm_tenant_wide: true } : {}),
  };
}
