/**
 * The visibility rule of documents in SQL (spec "Knowledge" visibility table), shared by the
 * document and chunk stores: every read path that takes a `Viewer` filters through `VISIBLE` with
 * the parameters of `viewerParams` (`@admin`, `@uid`, `@aud` as a JSON array, `@tenant`, and the
 * permission-profile scope `@scoped`, `@stags`, `@saud`).
 */
import type { Viewer } from '../domain/ports.js';

/**
 * Condition on `documents d`: the viewer's permission profiles open the document (issue 13 item 8):
 * not narrowed (`@scoped = 0`), their own, tagged with one of `@stags`, or shared with one of `@saud`.
 */
const IN_SCOPE = `(@scoped = 0 OR d.owner_user_id = @uid
  OR EXISTS (SELECT 1 FROM json_each(d.tags) t WHERE t.value IN (SELECT value FROM json_each(@stags)))
  OR EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id AND a.audience_tag IN (SELECT value FROM json_each(@saud))))`;

/**
 * Condition on `documents d`: a search's filter (issue 17 item 1) keeps it: not filtered
 * (`@filtered = 0`), tagged with one of `@ftags`, shared with one of `@faud`, or one of `@fdocs`.
 */
const IN_FILTER = `(@filtered = 0
  OR d.id IN (SELECT value FROM json_each(@fdocs))
  OR EXISTS (SELECT 1 FROM json_each(d.tags) t WHERE t.value IN (SELECT value FROM json_each(@ftags)))
  OR EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id AND a.audience_tag IN (SELECT value FROM json_each(@faud))))`;

/** Condition on `documents d`: the viewer may read the document (visibility table, then the profile scope, then the search's filter). */
export const VISIBLE = `((@admin = 1 OR d.owner_user_id = @uid
  OR (d.visibility_mode = 'shared' AND (
        NOT EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id)
        OR EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id AND a.audience_tag IN (SELECT value FROM json_each(@aud)))))
  OR (d.visibility_mode = 'restricted' AND (
        EXISTS (SELECT 1 FROM document_grants g WHERE g.document_id = d.id AND g.user_id = @uid)
        OR EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id AND a.audience_tag IN (SELECT value FROM json_each(@aud))))))
  AND ${IN_SCOPE} AND ${IN_FILTER})`;

/** Named parameters of `VISIBLE` for `viewer`. */
export function viewerParams(v: Viewer): {
  admin: number; uid: string; aud: string; tenant: string; scoped: number; stags: string; saud: string; filtered: number; ftags: string; faud: string; fdocs: string;
} {
  const scope = v.admin ? null : v.scope ?? null;
  const f = isFiltered(v) ? v.filter! : null;
  return {
    admin: v.admin ? 1 : 0, uid: v.userId, aud: JSON.stringify(v.audiences), tenant: v.tenantId,
    scoped: scope ? 1 : 0, stags: JSON.stringify(scope?.tags ?? []), saud: JSON.stringify(scope?.audiences ?? []),
    filtered: f ? 1 : 0, ftags: JSON.stringify(f?.tags ?? []), faud: JSON.stringify(f?.audiences ?? []), fdocs: JSON.stringify(f?.documentIds ?? []),
  };
}

/** Whether `v` carries a search filter that narrows (some list not empty). */
export function isFiltered(v: Viewer): boolean {
  const f = v.filter;
  return !!f && (f.tags.length > 0 || f.audiences.length > 0 || f.documentIds.length > 0);
}
