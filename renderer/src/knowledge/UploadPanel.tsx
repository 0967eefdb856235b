/**
 * Upload a document: file, title, visibility (private / shared / restricted with audiences and
 * user grants; any file type, see upload.ts), then the uploads in flight with a progress bar and the
 * document's status.
 */
import { useState, type FormEvent } from 'react';
import { useApp, type UploadItem } from '../store';
import { Link } from '../app/Link';
import { uploadFile } from './upload';
import { size } from './labels';
import { VisibilityFields } from './visibility';
import { PRIVATE_DRAFT, resolveDraft, type VisibilityDraft } from './visibility-draft';

const ACCEPT = '.pdf,.docx,.html,.htm,.md,.markdown,.txt,.csv,text/plain,text/markdown,text/csv,text/html,application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document';

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
  const [file, setFile] = useState<File | null>(null);
  const [title, setTitle] = useState('');
  const [draft, setDraft] = useState<VisibilityDraft>(PRIVATE_DRAFT);
  const [inputKey, setInputKey] = useState(0);
  const r = resolveDraft(draft);
  const blocked = !file || r.blocked;

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (!file || blocked) return;
    void uploadFile(file, { title, visibility: draft.visibility, audienceTags: r.audienceTags, userGrants: r.userGrants, confirmTenantWide: r.needsConfirm && draft.confirm });
    // The new audiences exist once the upload lands: keep them ticked for the next file.
    setFile(null); setTitle(''); setInputKey((k) => k + 1);
    if (draft.visibility !== 'private') setDraft({ ...draft, tags: r.audienceTags, newTags: '' });
  };

  return (
    <section className="card" aria-labelledby="k-upload-h">
      <h2 id="k-upload-h">Upload a document</h2>
      <form className="form-grid compact" onSubmit={submit} aria-label="Upload a document">
        <label htmlFor="k-file">File</label>
        <input key={inputKey} id="k-file" type="file" accept={ACCEPT} onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        <label htmlFor="k-title">Title</label>
        <input id="k-title" value={title} placeholder={file ? file.name.replace(/\.[A-Za-z0-9]+$/, '') : 'From the file'} onChange={(e) => setTitle(e.target.value)} />
        <VisibilityFields id="k" value={draft} onChange={setDraft} />
        <div /><button type="submit" className="primary" disabled={blocked}>Upload</button>
      </form>
      {uploads.length > 0 && <ul className="uploads" aria-label="Uploads">{uploads.map((u) => <UploadRow key={u.id} u={u} />)}</ul>}
    </section>
  );
}
