/** Receipts list (`GET /v1/receipts`, newest first, paged) with the selected receipt beside it. */
import { useState } from 'react';
import { useQuery } from '../api/cache';
import { api } from '../api/http';
import type { Page, ReceiptListItem } from '../api/types';
import { Link } from '../app/Link';
import { ReceiptView } from './ReceiptView';

export default function ReceiptsPage({ turnId }: { turnId: string | null }) {
  const first = useQuery<Page<ReceiptListItem>>('/v1/receipts?limit=50');
  const [more, setMore] = useState<ReceiptListItem[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const next = cursor === undefined ? first.data?.next_cursor : cursor;
  const items = [...(first.data?.items ?? []), ...more];
  const loadMore = async (): Promise<void> => {
    if (!next) return;
    const p = await api<Page<ReceiptListItem>>(`/v1/receipts?limit=50&cursor=${encodeURIComponent(next)}`);
    setMore((m) => [...m, ...p.items]);
    setCursor(p.next_cursor ?? null);
  };
  return (
    <div className="split">
      <section className="list-pane" aria-label="Receipts">
        <div className="pane-head"><h1>Receipts</h1><button type="button" className="link" onClick={() => { setMore([]); setCursor(undefined); void first.refetch(); }}>Refresh</button></div>
        {first.error && <p className="error">{first.error.message}</p>}
        {!first.loading && items.length === 0 && <p className="muted">No sealed receipts yet.</p>}
        <ul className="plain-list">
          {items.map((r) => (
            <li key={r.turn_id} className={r.turn_id === turnId ? 'current' : ''}>
              <Link to={`/receipts/${encodeURIComponent(r.turn_id)}`} current={r.turn_id === turnId}>
                <span className={`dot receipt-${r.verified_at ? 'verified' : r.status}`} aria-hidden="true" />
                <code>{r.turn_id}</code>
                <span className="meta">{r.verified_at ? 'verified' : r.status}{r.sealed_at ? ` · ${new Date(r.sealed_at).toLocaleString()}` : ''}</span>
              </Link>
            </li>
          ))}
        </ul>
        {next && <button type="button" onClick={() => { void loadMore(); }}>Load more</button>}
      </section>
      <section className="detail-pane" aria-label="Receipt detail">
        {turnId ? <ReceiptView key={turnId} turnId={turnId} /> : <p className="muted">Pick a receipt to see its events, envelope and chain.</p>}
      </section>
    </div>
  );
}
