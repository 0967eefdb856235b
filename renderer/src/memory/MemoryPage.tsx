/**
 * Memory (spec "Memory"): what the assistant remembers about the user. List by type (pinned
 * first), search by meaning, remember something new, edit, pin/unpin, forget (recorded as a
 * user-initiated forget).
 */
import { useState, type FormEvent } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import { MEMORY_TYPES, type MemoryRecord, type MemoryType, type Page } from '../api/types';
import { useAction } from '../app/use-action';

const TYPE_HELP: Record<MemoryType, string> = {
  user: 'about you', feedback: 'how you want answers', project: 'about your work', reference: 'where things are',
};

function when(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

/** Change a memory, then refetch the list and any search (both keys start with `/v1/memory`). */
async function update(m: MemoryRecord, body: Record<string, unknown>): Promise<void> {
  await api<MemoryRecord>(`/v1/memory/${encodeURIComponent(m.id)}`, { method: 'PUT', json: body });
  invalidate('/v1/memory');
}

function MemoryCard({ m }: { m: MemoryRecord }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(m.content);
  const [type, setType] = useState<MemoryType>(m.memory_type);
  const [forgetting, setForgetting] = useState(false);
  const { busy, error: err, run } = useAction();
  const save = (e: FormEvent): void => {
    e.preventDefault();
    void run(async () => { await update(m, { content: text.trim(), memory_type: type }); setEditing(false); });
  };
  const short = m.content.length > 60 ? `${m.content.slice(0, 60)}…` : m.content;
  return (
    <li className={`memory card${m.pinned ? ' pinned' : ''}`} aria-label={`Memory: ${short}`}>
      {editing ? (
        <form onSubmit={save} aria-label="Edit memory" className="memory-edit">
          <textarea aria-label="Memory text" value={text} rows={Math.min(8, Math.max(2, Math.ceil(text.length / 90)))} onChange={(e) => setText(e.target.value)} maxLength={8000} />
          <div className="row-buttons">
            <select aria-label="Memory type" value={type} onChange={(e) => setType(e.target.value as MemoryType)}>
              {MEMORY_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
            </select>
            <button type="submit" className="primary" disabled={busy || !text.trim()}>Save</button>
            <button type="button" className="link" onClick={() => { setEditing(false); setText(m.content); setType(m.memory_type); }}>Cancel</button>
          </div>
        </form>
      ) : (
        <>
          <div className="memory-head">
            <span className={`mtype mtype-${m.memory_type}`}>{m.memory_type}</span>
            {m.pinned && <span className="pin-badge" title="Pinned memories are always offered to the assistant first">Pinned</span>}
            {typeof m.score === 'number' && <span className="score" title="Relevance, 0 to 1">{m.score.toFixed(2)}</span>}
          </div>
          <p className="memory-text">{m.content}</p>
          <div className="muted small memory-meta">
            {m.why_stored && <span>Why: {m.why_stored} · </span>}
            {m.source && <span>From {m.source} · </span>}
            <span>Stored {when(m.created_at)}</span>
            {m.updated_at && m.updated_at !== m.created_at && <span> · edited {when(m.updated_at)}</span>}
            {m.last_recalled_at && <span> · last recalled {when(m.last_recalled_at)}</span>}
            {m.expires_at && <span> · expires {when(m.expires_at)}</span>}
          </div>
          <div className="row-buttons">
            <button type="button" className="link" onClick={() => setEditing(true)} aria-label={`Edit memory: ${short}`}>Edit</button>
            <button type="button" className="link" disabled={busy} onClick={() => { void run(() => update(m, { pinned: !m.pinned })); }} aria-label={`${m.pinned ? 'Unpin' : 'Pin'} memory: ${short}`} aria-pressed={m.pinned}>{m.pinned ? 'Unpin' : 'Pin'}</button>
            {forgetting ? (
              <>
                <span className="small">Forget this for good?</span>
                <button type="button" className="link danger" disabled={busy} onClick={() => { void run(async () => { await api(`/v1/memory/${encodeURIComponent(m.id)}/forget`, { method: 'POST', json: {} }); invalidate('/v1/memory'); }); }}>Yes, forget</button>
                <button type="button" className="link" onClick={() => setForgetting(false)}>Keep</button>
              </>
            ) : <button type="button" className="link danger" onClick={() => setForgetting(true)} aria-label={`Forget memory: ${short}`}>Forget</button>}
          </div>
        </>
      )}
      {err && <p className="error small" role="alert">{err}</p>}
    </li>
  );
}

function Remember() {
  const [text, setText] = useState('');
  const [type, setType] = useState<MemoryType>('user');
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    try {
      await api('/v1/memory', { method: 'POST', json: { content: text.trim(), memory_type: type, source: 'memory page' } });
      setText('');
      setMsg({ ok: true, text: 'Remembered.' });
      invalidate('/v1/memory');
    } catch (err) { setMsg({ ok: false, text: err instanceof Error ? err.message : String(err) }); }
  };
  return (
    <form className="remember" onSubmit={(e) => { void submit(e); }} aria-label="Remember something">
      <input aria-label="Something to remember" placeholder="Something the assistant should remember…" value={text} onChange={(e) => setText(e.target.value)} maxLength={8000} />
      <select aria-label="Type of the new memory" value={type} onChange={(e) => setType(e.target.value as MemoryType)}>
        {MEMORY_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
      </select>
      <button type="submit" disabled={!text.trim()}>Remember</button>
      {msg && <span className={`small ${msg.ok ? 'ok' : 'error'}`} role="status">{msg.text}</span>}
    </form>
  );
}

export default function MemoryPage() {
  const [type, setType] = useState<MemoryType | ''>('');
  const [query, setQuery] = useState('');
  // The submitted search: results are cached under a key naming it, so edits can refetch them.
  const [searched, setSearched] = useState<string | null>(null);
  const listKey = `/v1/memory?limit=200${type ? `&memory_type=${type}` : ''}`;
  const list = useQuery<Page<MemoryRecord>>(searched ? null : listKey);
  const searchKey = searched ? `/v1/memory/search?q=${encodeURIComponent(searched)}&type=${type}` : null;
  const search = useQuery<{ memories: MemoryRecord[] }>(searchKey, () => api('/v1/memory/search', { method: 'POST', json: { query: searched, limit: 50, ...(type ? { memory_type: type } : {}) } }));
  const active = searched ? search : list;
  const raw = searched ? search.data?.memories ?? [] : list.data?.items ?? [];
  // Pinned ones first; search keeps its relevance order otherwise.
  const items = searched ? raw : [...raw].sort((a, b) => Number(b.pinned) - Number(a.pinned));

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    setSearched(query.trim() || null);
  };
  return (
    <div className="page memory-page">
      <h1>Memory</h1>
      <p className="muted">What the assistant remembers about you. It recalls these in chat; pinned ones always come first. Only you (and administrators) can see them.</p>
      <Remember />
      <div className="memory-tools">
        <form role="search" aria-label="Search memories" className="search-row" onSubmit={submit}>
          <input type="search" aria-label="Search memories" placeholder="Search by meaning" value={query} onChange={(e) => { setQuery(e.target.value); if (!e.target.value) setSearched(null); }} />
          <button type="submit">Search</button>
          {searched && <button type="button" className="link" onClick={() => { setQuery(''); setSearched(null); }}>Show all</button>}
        </form>
        <div className="chips" role="group" aria-label="Filter by type">
          <button type="button" className={`chip${type === '' ? ' on' : ''}`} aria-pressed={type === ''} onClick={() => setType('')}>All</button>
          {MEMORY_TYPES.map((t) => <button key={t} type="button" className={`chip${type === t ? ' on' : ''}`} aria-pressed={type === t} title={TYPE_HELP[t]} onClick={() => setType(t)}>{t}</button>)}
        </div>
      </div>
      {active.error && <p className="error" role="alert">Memories could not be loaded: {active.error.message}</p>}
      {!active.loading && !active.error && items.length === 0 && (
        <div className="empty-box">
          {searched ? <p className="muted">No memory matches “{searched}”.</p>
            : <><p><strong>Nothing remembered yet{type ? ` of type ${type}` : ''}.</strong></p><p className="muted">The assistant stores memories when you ask it to remember something, or add one above.</p></>}
        </div>
      )}
      <ul className="memory-list" aria-label="Memories">
        {items.map((m) => <MemoryCard key={`${m.id}-${m.updated_at}`} m={m} />)}
      </ul>
    </div>
  );
}
