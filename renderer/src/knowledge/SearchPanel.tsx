/** Search the documents the user may read (`POST /v1/knowledge/search`), each result with why it matched. */
import { useState, type FormEvent } from 'react';
import { api } from '../api/http';
import type { SearchAnswer } from '../api/types';
import { Link } from '../app/Link';
import { useAction } from '../app/use-action';

export function SearchPanel() {
  const [query, setQuery] = useState('');
  // The answer belongs to this panel while it is open; a new search replaces it (not cached data).
  const [answer, setAnswer] = useState<{ query: string; data: SearchAnswer } | null>(null);
  const { busy, error: err, run } = useAction();

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const q = query.trim();
    if (!q) return;
    await run(async () => {
      setAnswer({ query: q, data: await api<SearchAnswer>('/v1/knowledge/search', { method: 'POST', json: { query: q, limit: 10 } }) });
    });
  };

  const results = answer?.data.results ?? [];
  return (
    <section className="card" aria-labelledby="k-search-h">
      <h2 id="k-search-h">Search</h2>
      <form className="search-row" role="search" aria-label="Search documents" onSubmit={(e) => { void submit(e); }}>
        <input type="search" aria-label="Search query" placeholder="What are you looking for?" value={query} onChange={(e) => setQuery(e.target.value)} />
        <button type="submit" disabled={busy || !query.trim()}>{busy ? 'Searching…' : 'Search'}</button>
      </form>
      {err && <p className="error" role="alert">Search failed: {err}</p>}
      {answer && results.length === 0 && <p className="muted" role="status">No document you can read matches “{answer.query}”.</p>}
      {results.length > 0 && (
        <ol className="results" aria-label="Search results">
          {results.map((r) => (
            <li key={`${r.source}-${r.chunk_index}`} className="result">
              <div className="result-head">
                <Link to={`/knowledge/${encodeURIComponent(r.source)}#chunk-${r.chunk_index}`}>{r.document_title}</Link>
                {r.heading && <span className="muted small">§ {r.heading}</span>}
                <span className="score" title="Relevance, 0 to 1">{r.score.toFixed(2)}</span>
              </div>
              <p className="snippet">{r.content.length > 360 ? `${r.content.slice(0, 360)}…` : r.content}</p>
              <div className="muted small">Passage {r.chunk_index + 1} · {r.retrieval_rationale}</div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
