/**
 * Visibility choices (spec visibility table) shared by the upload form and the editor of an existing
 * document (`PATCH /v1/knowledge/documents/:id`, owner or admin): mode, audiences (existing ones
 * ticked, new ones typed), user grants for restricted items, and the tenant-wide confirmation. The
 * draft rules are `visibility-draft.ts`.
 */
import { useState, type FormEvent } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import type { Audience, DocumentView, Page, VisibilityMode } from '../api/types';
import { useAction } from '../app/use-action';
import { VISIBILITY_HELP } from './labels';
import { draftOf, patchOf, resolveDraft, type VisibilityDraft } from './visibility-draft';

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
  const { busy, error: err, run } = useAction();
  const { blocked } = resolveDraft(draft);
  const save = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    if (blocked) return;
    await run(async () => {
      await api(`/v1/knowledge/documents/${encodeURIComponent(doc.document_id)}`, { method: 'PATCH', json: patchOf(draft) });
      invalidate('/v1/knowledge/');
      onDone();
    });
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
