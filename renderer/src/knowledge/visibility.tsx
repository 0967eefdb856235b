/**
 * Visibility choices (spec visibility table) shared by the upload form and the editor of an existing
 * document (`PATCH /v1/knowledge/documents/:id`, owner or admin): mode, audiences (existing ones
 * ticked, new ones typed), user grants for restricted items, and the tenant-wide confirmation.
 */
import { useState, type FormEvent } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import type { Audience, DocumentPatchRequest, DocumentView, Page, ProfileView, VisibilityMode } from '../api/types';
import { VISIBILITY_HELP } from './labels';

/** Roles that manage every document (services/knowledge ADMIN_ROLES). */
const ADMIN_ROLES = ['admin', 'tenant_admin', 'platform_admin'];
/** Audience tag syntax the service accepts. */
const TAG = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** True when `me` may change `d` (its owner, or an administrator). */
export function canManage(me: ProfileView | undefined, d: Pick<DocumentView, 'owner_user_id'>): boolean {
  return Boolean(me && (me.id === d.owner_user_id || me.roles.some((r) => ADMIN_ROLES.includes(r))));
}

export function splitList(s: string): string[] {
  return [...new Set(s.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean))];
}

/** What the form holds. */
export interface VisibilityDraft { visibility: VisibilityMode; tags: string[]; newTags: string; grants: string; confirm: boolean }

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
  const badTags = audienceTags.filter((t) => !TAG.test(t));
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

/** The form fields (label/control pairs for a `form-grid`); `id` keeps ids unique per form. */
export function VisibilityFields({ id, value, onChange }: { id: string; value: VisibilityDraft; onChange: (v: VisibilityDraft) => void }) {
  const audiences = useQuery<Page<Audience>>('/v1/knowledge/admin/audiences');
  const set = (patch: Partial<VisibilityDraft>): void => onChange({ ...value, ...patch });
  const r = resolveDraft(value);
  const known = audiences.data?.items.map((a) => a.tag) ?? [];
  const toggleTag = (t: string): void => set({ tags: value.tags.includes(t) ? value.tags.filter((x) => x !== t) : [...value.tags, t] });
  return (
    <>
      <label htmlFor={`${id}-vis`}>Visibility</label>
      <select id={`${id}-vis`} value={value.visibility} onChange={(e) => set({ visibility: e.target.value as VisibilityMode })}>
        <option value="private">Private</option>
        <option value="shared">Shared</option>
        <option value="restricted">Restricted</option>
      </select>
      <p className="muted small">{VISIBILITY_HELP[value.visibility]}</p>
      {value.visibility !== 'private' && (
        <>
          <span className="label-like" id={`${id}-aud-l`}>Audiences</span>
          <div className="tag-picks" role="group" aria-labelledby={`${id}-aud-l`}>
            {(audiences.data?.items ?? []).map((a) => (
              <label key={a.tag} className="check"><input type="checkbox" checked={value.tags.includes(a.tag)} onChange={() => toggleTag(a.tag)} />{a.tag}<span className="muted small">· {a.member_count} member{a.member_count === 1 ? '' : 's'}</span></label>
            ))}
            {/* Tags of the document the list does not (yet) show stay choosable. */}
            {value.tags.filter((t) => audiences.data && !known.includes(t)).map((t) => (
              <label key={t} className="check"><input type="checkbox" checked onChange={() => toggleTag(t)} />{t}</label>
            ))}
            {audiences.data && audiences.data.items.length === 0 && value.tags.length === 0 && <span className="muted small">No audiences yet.</span>}
            {audiences.error && <span className="error small">Audiences could not be loaded: {audiences.error.message}</span>}
          </div>
          <label htmlFor={`${id}-newtags`}>New audiences</label>
          <input id={`${id}-newtags`} value={value.newTags} placeholder="e.g. finance, legal" onChange={(e) => set({ newTags: e.target.value })} />
        </>
      )}
      {value.visibility === 'restricted' && (
        <>
          <label htmlFor={`${id}-grants`}>User grants</label>
          <input id={`${id}-grants`} value={value.grants} placeholder="user ids, comma separated" onChange={(e) => set({ grants: e.target.value })} />
        </>
      )}
      {r.needsConfirm && (
        <>
          <label htmlFor={`${id}-confirm`}>Everyone in the organisation</label>
          <label className="check"><input id={`${id}-confirm`} type="checkbox" checked={value.confirm} onChange={(e) => set({ confirm: e.target.checked })} />I confirm every user of the tenant may read it</label>
        </>
      )}
      {r.badTags.length > 0 && <p className="error small" role="alert">Audience names take letters, digits and . _ : - only: {r.badTags.join(', ')}</p>}
      {r.restrictedEmpty && <p className="muted small">Restricted: pick at least one audience or user.</p>}
    </>
  );
}

/** Change who may read an existing document (owner or admin). */
export function VisibilityEditor({ doc, onDone }: { doc: DocumentView; onDone: () => void }) {
  const [draft, setDraft] = useState<VisibilityDraft>(() => draftOf(doc));
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string | null>(null);
  const { blocked } = resolveDraft(draft);
  const save = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    if (blocked) return;
    setBusy(true); setErr(null);
    try {
      await api(`/v1/knowledge/documents/${encodeURIComponent(doc.document_id)}`, { method: 'PATCH', json: patchOf(draft) });
      invalidate('/v1/knowledge/');
      onDone();
    } catch (x) {
      setErr(x instanceof Error ? x.message : String(x));
    } finally { setBusy(false); }
  };
  return (
    <form className="form-grid compact" onSubmit={(e) => { void save(e); }} aria-label={`Visibility of ${doc.title}`}>
      <VisibilityFields id={`v-${doc.document_id}`} value={draft} onChange={setDraft} />
      {err && <p className="error small" role="alert">{err}</p>}
      <div />
      <div className="row-buttons">
        <button type="submit" className="primary" disabled={blocked || busy}>Save visibility</button>
        <button type="button" className="link" onClick={onDone}>Cancel</button>
      </div>
    </form>
  );
}
