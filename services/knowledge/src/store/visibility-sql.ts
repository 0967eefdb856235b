/**
 * The visibility rule of documents in SQL (spec "Knowledge" visibility table), shared by the
 * document and chunk stores: every read path that takes a `Viewer` filters through `VISIBLE` with
 * the parameters of `viewerParams` (`@admin`, `@uid`, `@aud` as a JSON array, `@tenant`).
 */
import type { Viewer } from '../domain/ports.js';

/** Condition on `documents d`: the viewer may read the document. */
export const VISIBLE = `(@admin = 1 OR d.owner_user_id = @uid
  OR (d.visibility_mode = 'shared' AND (
        NOT EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id)
        OR EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id AND a.audience_tag IN (SELECT value FROM json_each(@aud)))))
  OR (d.visibility_mode = 'restricted' AND (
        EXISTS (SELECT 1 FROM document_grants g WHERE g.document_id = d.id AND g.user_id = @uid)
        OR EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id AND a.audience_tag IN (SELECT value FROM json_each(@aud))))))`;

/** Named parameters of `VISIBLE` for `viewer`. */
export function viewerParams(v: Viewer): { admin: number; uid: string; aud: string; tenant: string } {
  return { admin: v.admin ? 1 : 0, uid: v.userId, aud: JSON.stringify(v.audiences), tenant: v.tenantId };
}
