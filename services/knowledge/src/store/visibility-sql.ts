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

/** Condition on `documents d`: the viewer may read the document (visibility table, then the profile scope). */
export const VISIBLE = `((@admin = 1 OR d.owner_user_id = @uid
  OR (d.visibility_mode = 'shared' AND (
        NOT EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id)
        OR EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id AND a.audience_tag IN (SELECT value FROM json_each(@aud)))))
  OR (d.visibility_mode = 'restricted' AND (
        EXISTS (SELECT 1 FROM document_grants g WHERE g.document_id = d.id AND g.user_id = @uid)
        OR EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id AND a.audience_tag IN (SELECT value FROM json_each(@aud))))))
  AND ${IN_SCOPE})`;

/** Named parameters of `VISIBLE` for `viewer`. */
export function viewerParams(v: Viewer): { admin: number; uid: string; aud: string; tenant: string; scoped: number; stags: string; saud: string } {
  const scope = v.admin ? null : v.scope ?? null;
  return {
    admin: v.admin ? 1 : 0, uid: v.userId, aud: JSON.stringify(v.audiences), tenant: v.tenantId,
    scoped: scope ? 1 : 0, stags: JSON.stringify(scope?.tags ?? []), saud: JSON.stringify(scope?.audiences ?? []),
  };
}
