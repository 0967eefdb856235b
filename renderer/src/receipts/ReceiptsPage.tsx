/**
 * Receipts as history (`GET /v1/receipts`, newest first, paged; issue 13 item 7): each row says what
 * the turn was (a chat's first words, a tool run, or the method and route), who, when and how it
 * ended; a kind filter (chats by default) and a debounced search narrow the list; the selected
 * receipt shows beside it. The rules are `history.ts`.
 */
import { useEffect, useRef, useState } from 'react';
import { useQuery } from '../api/cache';
import { api } from '../api/http';
import type { Page, ProfileView, ReceiptListItem } from '../api/types';
import { Link } from '../app/Link';
import {
  DEFAULT_KIND, KIND_FILTERS, SEARCH_DEBOUNCE_MS, emptyText, kindLabel, outcomeOf, receiptListPath, receiptState, whatOf, whenOf, whoOf,
  type KindFilter,
} from './history';
import { ReceiptView } from './ReceiptView';
import { LocalVerifyPanel } from './LocalVerifyPanel';

/** `value`, once it stopped changing for `ms`. */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

function ReceiptRow({ r, current, meId }: { r: ReceiptListItem; current: boolean; meId: string | undefined }) {
  const what = whatOf(r);
  const outcome = outcomeOf(r);
  const state = receiptState(r);
  return (
    <li className={current ? 'current' : ''} data-testid="receipt-row" data-kind={r.kind}>
      <Link to={`/receipts/${encodeURIComponent(r.turn_id)}`} current={current} className="receipt-row">
        <span className={`dot receipt-${state}`} aria-hidden="true" />
        <span className="receipt-what" title={r.summary ?? what.title}>{what.title}</span>
        {what.detail && <code className="receipt-route">{what.detail}</code>}
        <span className="meta">
          <span className="receipt-kind">{kindLabel(r.kind)}</span>
          {' · '}<span className="receipt-who">{whoOf(r, meId)}</span>
          {' · '}<time dateTime={r.created_at} title={new Date(r.created_at).toLocaleString()}>{whenOf(r.created_at)}</time>
          {' · '}<span className={`receipt-outcome tone-${outcome.tone}`}>{outcome.label}</span>
          {' · '}<span className="receipt-state">{state}</span>
        </span>
      </Link>
    </li>
  );
}

/** One filtered list; remounted (paging state reset) when the filter or search changes. */
function ReceiptList({ kind, q, turnId, meId, refreshes }: { kind: KindFilter; q: string; turnId: string | null; meId: string | undefined; refreshes: number }) {
  const first = useQuery<Page<ReceiptListItem>>(receiptListPath(kind, q));
  const [more, setMore] = useState<ReceiptListItem[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const { refetch } = first;
  const refreshed = useRef(refreshes);
  useEffect(() => {
    if (refreshes === refreshed.current) return;
    refreshed.current = refreshes;
    setMore([]);
    setCursor(undefined);
    void refetch();
  }, [refreshes, refetch]);
  const next = cursor === undefined ? first.data?.next_cursor : cursor;
  const items = [...(first.data?.items ?? []), ...more];
  const loadMore = async (): Promise<void> => {
    if (!next) return;
    const p = await api<Page<ReceiptListItem>>(receiptListPath(kind, q, next));
    setMore((m) => [...m, ...p.items]);
    setCursor(p.next_cursor ?? null);
  };
  return (
    <>
      {first.error && <p className="error">{first.error.message}</p>}
      {!first.loading && !first.error && items.length === 0 && <p className="muted">{emptyText(kind, q)}</p>}
      <ul className="plain-list receipt-history" aria-busy={first.loading}>
        {items.map((r) => <ReceiptRow key={r.turn_id} r={r} current={r.turn_id === turnId} meId={meId} />)}
      </ul>
      {next && <button type="button" onClick={() => { void loadMore(); }}>Load more</button>}
    </>
  );
}

export default function ReceiptsPage({ turnId }: { turnId: string | null }) {
  const me = useQuery<ProfileView>('/v1/user/me');
  const [kind, setKind] = useState<KindFilter>(DEFAULT_KIND);
  const [search, setSearch] = useState('');
  const q = useDebounced(search, SEARCH_DEBOUNCE_MS).trim();
  const [refreshes, setRefreshes] = useState(0);
  // Issue 22 item 5: verify an exported bundle file in this browser, against pinned keys.
  const [local, setLocal] = useState(false);
  return (
    <div className="split">
      <section className="list-pane" aria-label="Receipts">
        <div className="pane-head"><h1>Receipts</h1><button type="button" className="link" onClick={() => setRefreshes((n) => n + 1)}>Refresh</button>
          <button type="button" className="link" data-testid="open-local-verify" aria-pressed={local} onClick={() => setLocal((v) => !v)}>Verify a file</button></div>
        <div className="receipt-filters">
          <div className="chips" role="group" aria-label="Kind" data-testid="receipt-kind-filter">
            {KIND_FILTERS.map((f) => (
              <button key={f.value} type="button" className={`chip${f.value === kind ? ' on' : ''}`} aria-pressed={f.value === kind} onClick={() => setKind(f.value)}>
                {f.label}
              </button>
            ))}
          </div>
          <input
            type="search" className="receipt-search" data-testid="receipt-search" aria-label="Search receipts" placeholder="Search what, route or turn id"
            maxLength={200} value={search} onChange={(e) => setSearch(e.target.value)}
          />
        </div>
        <ReceiptList key={`${kind}\n${q}`} kind={kind} q={q} turnId={turnId} meId={me.data?.id} refreshes={refreshes} />
      </section>
      <section className="detail-pane" aria-label="Receipt detail">
        {local ? <LocalVerifyPanel />
          : turnId ? <ReceiptView key={turnId} turnId={turnId} /> : <p className="muted">Pick a receipt to see its events, envelope and chain.</p>}
      </section>
    </div>
  );
}
