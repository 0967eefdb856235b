/**
 * One document as a side panel (`/knowledge/<id>`, also where chat citations lead): governance
 * fields (owners and administrators change the visibility here), chunks (the cited one,
 * `#chunk-<n>`, highlighted) and the extracted text.
 */
import { useEffect, useRef, useState } from 'react';
import { useQuery } from '../api/cache';
import { ApiError } from '../api/http';
import type { DocumentContent, DocumentDetail, ProfileView } from '../api/types';
import { useApp } from '../store';
import { audienceOf, kindOf, size } from './labels';
import { VisibilityEditor } from './visibility';
import { canManage } from './visibility-draft';

export function DocumentDrawer({ documentId, chunk }: { documentId: string; chunk: number | null }) {
  const navigated = useApp((s) => s.navigated);
  const base = `/v1/knowledge/documents/${encodeURIComponent(documentId)}`;
  const detail = useQuery<DocumentDetail>(base);
  const content = useQuery<DocumentContent>(`${base}/content`);
  const me = useQuery<ProfileView>('/v1/user/me');
  const ref = useRef<HTMLDivElement>(null);
  const [editing, setEditing] = useState(false);
  const close = (): void => navigated('/knowledge');

  useEffect(() => {
    ref.current?.focus();
    const onKey = (e: KeyboardEvent): void => { if (e.key === 'Escape') navigated('/knowledge'); };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [navigated]);

  // Bring the cited chunk into view once the chunk list is drawn.
  const chunksReady = Boolean(detail.data?.chunks);
  useEffect(() => {
    if (chunk === null || !chunksReady) return;
    document.getElementById(`chunk-${chunk}`)?.scrollIntoView({ block: 'center' });
  }, [chunk, chunksReady]);

  const d = detail.data;
  const missing = detail.error instanceof ApiError && detail.error.status === 404;
  return (
    <div className="drawer-backdrop" onClick={close}>
      <div className="drawer" role="dialog" aria-modal="true" aria-label="Document" tabIndex={-1} ref={ref} onClick={(e) => e.stopPropagation()}>
        <div className="drawer-head"><h2>{d?.title ?? 'Document'}</h2><button type="button" className="link" onClick={close} aria-label="Close document">Close</button></div>
        {detail.loading && !d && <p className="muted">Loading…</p>}
        {missing && <p className="error" role="alert">This document does not exist, or you may not read it.</p>}
        {detail.error && !missing && <p className="error" role="alert">{detail.error.message}</p>}
        {d && (
          <>
            <dl className="facts">
              <dt>Status</dt><dd><span className={`status status-${d.status}`}>{d.status}</span>{d.last_error && <span className="error"> {d.last_error}</span>}</dd>
              <dt>Visibility</dt>
              <dd>
                {d.visibility_mode} <span className="muted">{audienceOf(d)}</span>
                {canManage(me.data, d) && !editing && <> <button type="button" className="link small" onClick={() => setEditing(true)}>Change visibility</button></>}
              </dd>
              <dt>Type</dt><dd>{kindOf(d)}{d.filename ? ` · ${d.filename}` : ''} · {size(d.bytes)}</dd>
              <dt>Passages</dt><dd>{d.chunks_indexed} indexed, {d.chunks_embedded} with vectors</dd>
              <dt>Owner</dt><dd>{d.owner_user_id === me.data?.id ? 'You' : <code>{d.owner_user_id}</code>}</dd>
              <dt>Added</dt><dd>{new Date(d.created_at).toLocaleString()}</dd>
              {d.archived_at && <><dt>Archived</dt><dd>{new Date(d.archived_at).toLocaleString()}</dd></>}
            </dl>
            {editing && <VisibilityEditor doc={d} onDone={() => setEditing(false)} />}
            {d.chunks && d.chunks.length > 0 && (
              <details className="section" open={chunk !== null}>
                <summary>Passages ({d.chunks.length})</summary>
                <ol className="chunks">
                  {d.chunks.map((c) => (
                    <li key={c.chunk_index} id={`chunk-${c.chunk_index}`} className={c.chunk_index === chunk ? 'cited' : undefined} aria-current={c.chunk_index === chunk ? 'true' : undefined}>
                      {c.heading && <div className="small muted">§ {c.heading}</div>}
                      <div className="small">{c.preview}</div>
                    </li>
                  ))}
                </ol>
              </details>
            )}
            <h3 className="section">Text</h3>
            {content.error && <p className="error">The text could not be loaded: {content.error.message}</p>}
            {content.data && (content.data.content ? <pre className="doc-text">{content.data.content}</pre> : <p className="muted">No text was extracted.</p>)}
          </>
        )}
      </div>
    </div>
  );
}
