/**
 * Upload a document: file, title, visibility (private / shared / restricted with audiences and
 * user grants), then the uploads in flight with a progress bar and the document's status.
 */
import { useState, type FormEvent } from 'react';
import { useQuery } from '../api/cache';
import { useApp, type UploadItem } from '../store';
import type { Audience, Page, VisibilityMode } from '../api/types';
import { Link } from '../app/Link';
import { isTextLike, uploadFile } from './upload';
import { VISIBILITY_HELP, size } from './labels';

const ACCEPT = '.pdf,.docx,.html,.htm,.md,.markdown,.txt,.csv,text/plain,text/markdown,text/csv,text/html,application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document';

function splitList(s: string): string[] {
  return [...new Set(s.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean))];
}

const PHASE: Record<UploadItem['phase'], string> = {
  uploading: 'Uploading', processing: 'Extracting and indexing', indexing: 'Embedding', indexed: 'Indexed', failed: 'Failed',
};

function UploadRow({ u }: { u: UploadItem }) {
  const dismissed = useApp((s) => s.uploadDismissed);
  // Upload bytes are the first half of the bar, embedding the second: one bar from start to indexed.
  const value = u.phase === 'uploading' ? (u.total ? u.sent / u.total : 0) * 0.5
    : u.phase === 'processing' ? 0.5
      : u.phase === 'indexing' ? 0.5 + (u.chunks ? (u.embedded / u.chunks) * 0.5 : 0)
        : 1;
  const pct = Math.round(value * 100);
  const detail = u.phase === 'uploading' ? `${size(u.sent)} of ${size(u.total)}`
    : u.phase === 'indexing' ? `${u.embedded} of ${u.chunks} passages embedded`
      : u.phase === 'indexed' ? `${u.chunks} passage${u.chunks === 1 ? '' : 's'} · ${u.visibility}`
        : u.phase === 'failed' ? u.error ?? 'Failed' : '';
  const done = u.phase === 'indexed' || u.phase === 'failed';
  return (
    <li className={`upload upload-${u.phase}`} aria-label={`Upload ${u.name}`}>
      <div className="upload-head">
        <span className="upload-name">{u.documentId ? <Link to={`/knowledge/${encodeURIComponent(u.documentId)}`}>{u.name}</Link> : u.name}</span>
        <span className={`status status-${u.phase}`} data-testid="upload-status">{PHASE[u.phase]}</span>
        {done && <button type="button" className="link small" onClick={() => dismissed(u.id)} aria-label={`Dismiss ${u.name}`}>Dismiss</button>}
      </div>
      <progress
        max={100} value={u.phase === 'processing' ? undefined : pct} aria-label={`Progress of ${u.name}`}
        className={u.phase === 'failed' ? 'failed' : undefined}
      >{pct}%</progress>
      <div className={`small ${u.phase === 'failed' ? 'error' : 'muted'}`} role={u.phase === 'failed' ? 'alert' : undefined}>{detail}</div>
    </li>
  );
}

export function UploadPanel() {
  const uploads = useApp((s) => s.uploads);
  const audiences = useQuery<Page<Audience>>('/v1/knowledge/admin/audiences');
  const [file, setFile] = useState<File | null>(null);
  const [title, setTitle] = useState('');
  const [visibility, setVisibility] = useState<VisibilityMode>('private');
  const [tags, setTags] = useState<string[]>([]);
  const [newTags, setNewTags] = useState('');
  const [grants, setGrants] = useState('');
  const [confirm, setConfirm] = useState(false);
  const [inputKey, setInputKey] = useState(0);

  const allTags = [...tags, ...splitList(newTags)];
  const binaryShared = visibility !== 'private' && file !== null && !isTextLike(file);
  const needsConfirm = visibility === 'shared' && allTags.length === 0;
  const restrictedEmpty = visibility === 'restricted' && allTags.length === 0 && splitList(grants).length === 0;
  const blocked = !file || binaryShared || (needsConfirm && !confirm) || restrictedEmpty;

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (!file || blocked) return;
    void uploadFile(file, { title, visibility, audienceTags: visibility === 'private' ? [] : allTags, userGrants: splitList(grants), confirmTenantWide: needsConfirm && confirm });
    // The new audiences exist once the upload lands: keep them ticked for the next file.
    setFile(null); setTitle(''); setInputKey((k) => k + 1);
    if (visibility !== 'private') { setTags(allTags); setNewTags(''); }
  };
  const toggleTag = (t: string): void => setTags((cur) => (cur.includes(t) ? cur.filter((x) => x !== t) : [...cur, t]));

  return (
    <section className="card" aria-labelledby="k-upload-h">
      <h2 id="k-upload-h">Upload a document</h2>
      <form className="form-grid compact" onSubmit={submit} aria-label="Upload a document">
        <label htmlFor="k-file">File</label>
        <input key={inputKey} id="k-file" type="file" accept={ACCEPT} onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        <label htmlFor="k-title">Title</label>
        <input id="k-title" value={title} placeholder={file ? file.name.replace(/\.[A-Za-z0-9]+$/, '') : 'From the file'} onChange={(e) => setTitle(e.target.value)} />
        <label htmlFor="k-vis">Visibility</label>
        <select id="k-vis" value={visibility} onChange={(e) => setVisibility(e.target.value as VisibilityMode)}>
          <option value="private">Private</option>
          <option value="shared">Shared</option>
          <option value="restricted">Restricted</option>
        </select>
        <p className="muted small">{VISIBILITY_HELP[visibility]}</p>
        {visibility !== 'private' && (
          <>
            <span className="label-like" id="k-aud-l">Audiences</span>
            <div className="tag-picks" role="group" aria-labelledby="k-aud-l">
              {(audiences.data?.items ?? []).map((a) => (
                <label key={a.tag} className="check"><input type="checkbox" checked={tags.includes(a.tag)} onChange={() => toggleTag(a.tag)} />{a.tag}<span className="muted small">· {a.member_count} member{a.member_count === 1 ? '' : 's'}</span></label>
              ))}
              {audiences.data && audiences.data.items.length === 0 && <span className="muted small">No audiences yet.</span>}
              {audiences.error && <span className="error small">Audiences could not be loaded: {audiences.error.message}</span>}
            </div>
            <label htmlFor="k-newtags">New audiences</label>
            <input id="k-newtags" value={newTags} placeholder="e.g. finance, legal" onChange={(e) => setNewTags(e.target.value)} />
          </>
        )}
        {visibility === 'restricted' && (
          <>
            <label htmlFor="k-grants">User grants</label>
            <input id="k-grants" value={grants} placeholder="user ids, comma separated" onChange={(e) => setGrants(e.target.value)} />
          </>
        )}
        {needsConfirm && (
          <>
            <label htmlFor="k-confirm">Everyone in the organisation</label>
            <label className="check"><input id="k-confirm" type="checkbox" checked={confirm} onChange={(e) => setConfirm(e.target.checked)} />I confirm every user of the tenant may read it</label>
          </>
        )}
        {binaryShared && <p className="notice warn" role="alert">PDF, Word and HTML files upload as private only (the browser cannot send their text to the shared route). Upload a Markdown or text version to share it.</p>}
        {restrictedEmpty && <p className="muted small">Restricted: pick at least one audience or user.</p>}
        <div /><button type="submit" className="primary" disabled={blocked}>Upload</button>
      </form>
      {uploads.length > 0 && <ul className="uploads" aria-label="Uploads">{uploads.map((u) => <UploadRow key={u.id} u={u} />)}</ul>}
    </section>
  );
}
