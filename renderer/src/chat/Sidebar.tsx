/** Sessions sidebar: new chat, search, folders (filter, create, move a session). */
import { useDeferredValue, useState } from 'react';
import { useApp } from '../store';
import { invalidate, useQuery } from '../api/cache';
import { api, ApiError } from '../api/http';
import type { FolderView, Page, SessionView } from '../api/types';
import { Link } from '../app/Link';

export function Sidebar({ current }: { current: string | null }) {
  const query = useApp((s) => s.sidebarQuery);
  const folder = useApp((s) => s.folderFilter);
  const queryChanged = useApp((s) => s.sidebarQueryChanged);
  const folderChanged = useApp((s) => s.folderFilterChanged);
  const navigated = useApp((s) => s.navigated);
  const q = useDeferredValue(query.trim());
  const params = new URLSearchParams({ limit: '100' });
  if (q) params.set('q', q);
  if (folder) params.set('folder_id', folder);
  const sessions = useQuery<Page<SessionView>>(`/v1/sessions?${params}`);
  const folders = useQuery<Page<FolderView>>('/v1/folders');
  const [newFolder, setNewFolder] = useState<string | null>(null);
  const unavailable = sessions.error instanceof ApiError && (sessions.error.status === 404 || sessions.error.status === 502);
  const items = (sessions.data?.items ?? []).filter((s) => !q || (s.title ?? '').toLowerCase().includes(q.toLowerCase()));

  const createFolder = async (): Promise<void> => {
    const name = newFolder?.trim();
    setNewFolder(null);
    if (!name) return;
    await api('/v1/folders', { method: 'POST', json: { name } });
    invalidate('/v1/folders');
  };
  const move = async (sessionId: string, folderId: string): Promise<void> => {
    await api(`/v1/sessions/${encodeURIComponent(sessionId)}/folder`, { method: 'PUT', json: { folder_id: folderId || null } });
    invalidate('/v1/sessions');
    invalidate('/v1/folders');
  };

  return (
    <aside className="sidebar" aria-label="Sessions">
      <button type="button" className="primary wide" onClick={() => navigated('/chat')}>New chat</button>
      <input type="search" className="search" placeholder="Search chats" aria-label="Search chats" value={query} onChange={(e) => queryChanged(e.target.value)} />
      <div className="folders" role="group" aria-label="Folders">
        <button type="button" className={`chip${folder === null ? ' on' : ''}`} onClick={() => folderChanged(null)}>All</button>
        {(folders.data?.items ?? []).map((f) => (
          <button type="button" key={f.id} className={`chip${folder === f.id ? ' on' : ''}`} onClick={() => folderChanged(f.id)} title={`${f.session_count} chats`}>{f.name}</button>
        ))}
        {newFolder === null
          ? <button type="button" className="chip add" onClick={() => setNewFolder('')} aria-label="New folder">+</button>
          : <input className="chip-input" autoFocus aria-label="Folder name" value={newFolder} onChange={(e) => setNewFolder(e.target.value)}
              onKeyDown={(e) => { if (e.key === 'Enter') void createFolder(); if (e.key === 'Escape') setNewFolder(null); }} onBlur={() => { void createFolder(); }} />}
      </div>
      <nav className="session-list" aria-label="Chats">
        {unavailable && <p className="muted small">Chat history is not available on this server yet.</p>}
        {!unavailable && sessions.error && <p className="error small">{sessions.error.message}</p>}
        {!sessions.loading && !sessions.error && items.length === 0 && <p className="muted small">{q ? 'No chat matches.' : 'No chats yet.'}</p>}
        {items.map((s) => (
          <div key={s.id} className={`session${s.id === current ? ' current' : ''}`}>
            <Link to={`/chat/${encodeURIComponent(s.id)}`} current={s.id === current}>
              <span className="title">{s.title || 'Untitled chat'}</span>
              <span className="meta">{new Date(s.updated_at).toLocaleDateString()}{s.branched_from ? ' · branch' : ''}</span>
            </Link>
            {(folders.data?.items.length ?? 0) > 0 && (
              <select aria-label={`Folder of ${s.title || 'chat'}`} value={s.folder_id ?? ''} onChange={(e) => { void move(s.id, e.target.value); }}>
                <option value="">No folder</option>
                {folders.data!.items.map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
              </select>
            )}
          </div>
        ))}
      </nav>
    </aside>
  );
}
