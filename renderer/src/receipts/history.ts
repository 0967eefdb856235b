/**
 * Receipts that read like history (issue 13 item 7): the rules of the receipts list as plain
 * functions (no React, no fetch; unit-tested in Node, test/unit/renderer): the kind filters, the
 * list URL, and what a row says — what the turn was, who, when and how it ended.
 */
import type { ReceiptListItem } from '../api/types';

/** A kind filter of the list (`kind` of `GET /v1/receipts`). */
export type KindFilter = 'chat' | 'tool_run' | 'admin' | 'all';

/** The filters in the order the page shows them; chats first (the default). */
export const KIND_FILTERS: ReadonlyArray<{ value: KindFilter; label: string }> = [
  { value: 'chat', label: 'Chats' },
  { value: 'tool_run', label: 'Tool runs' },
  { value: 'admin', label: 'Admin actions' },
  { value: 'all', label: 'Everything' },
];

/** The filter the page opens with. */
export const DEFAULT_KIND: KindFilter = 'chat';

/** How long the search box waits after the last key before it asks, ms. */
export const SEARCH_DEBOUNCE_MS = 300;

/** Page size of the list. */
export const PAGE_SIZE = 50;

/**
 * The URL of one page of the list: `/v1/receipts?limit&kind&q&cursor` (blank `q` left out, `q`
 * trimmed and cut to the 200 characters the service takes).
 */
export function receiptListPath(kind: KindFilter, q: string, cursor?: string | null, limit: number = PAGE_SIZE): string {
  const p = new URLSearchParams({ limit: String(limit), kind });
  const t = q.trim().slice(0, 200);
  if (t) p.set('q', t);
  if (cursor) p.set('cursor', cursor);
  return `/v1/receipts?${p.toString()}`;
}

/** The request line of a turn (`POST /v1/chat`), or null when it did not come through the gateway. */
export function requestLine(r: Pick<ReceiptListItem, 'method' | 'route'>): string | null {
  if (!r.route) return null;
  return r.method ? `${r.method} ${r.route}` : r.route;
}

/** What the turn was: a headline (a chat's first words, a tool run, or the method and route) and a detail line. */
export function whatOf(r: Pick<ReceiptListItem, 'kind' | 'summary' | 'method' | 'route' | 'turn_id'>): { title: string; detail: string | null } {
  const line = requestLine(r);
  switch (r.kind) {
    case 'chat': return { title: r.summary ? `“${r.summary}”` : 'Chat', detail: r.summary ? null : line };
    case 'tool_run': return { title: r.summary ? `Tool run: ${r.summary}` : 'Tool run', detail: line };
    default: return { title: line ?? `Turn ${r.turn_id}`, detail: null };
  }
}

/** The words of a kind (the row's tag). */
export function kindLabel(kind: ReceiptListItem['kind']): string {
  switch (kind) {
    case 'chat': return 'Chat';
    case 'tool_run': return 'Tool run';
    case 'admin': return 'Admin';
    default: return 'Request';
  }
}

/** Who: `you` for the signed-in user, else the user id (admins see everyone's). */
export function whoOf(r: Pick<ReceiptListItem, 'user_id'>, meId: string | null | undefined): string {
  return meId && r.user_id === meId ? 'you' : r.user_id;
}

/** How the turn ended, in words, and its tone (`ok`, `bad`, `warn`). */
export function outcomeOf(r: Pick<ReceiptListItem, 'outcome' | 'http_status'>): { label: string; tone: 'ok' | 'bad' | 'warn' } {
  const code = r.http_status !== null ? ` (${r.http_status})` : '';
  if (r.outcome === 'blocked') return { label: 'blocked', tone: 'warn' };
  if (r.outcome === 'failed') return { label: `failed${code}`, tone: 'bad' };
  if (r.http_status !== null && r.http_status >= 400) return { label: `refused${code}`, tone: 'warn' };
  return { label: 'completed', tone: 'ok' };
}

/** The receipt's own state for the dot: `verified` once verified, else its status. */
export function receiptState(r: Pick<ReceiptListItem, 'status' | 'verified_at'>): string {
  return r.verified_at ? 'verified' : r.status;
}

/** When, short: the time today, else the date and time (the user's locale and zone). */
export function whenOf(iso: string, now: Date = new Date(), locale?: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const sameDay = d.toDateString() === now.toDateString();
  return sameDay
    ? d.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' })
    : d.toLocaleString(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** The empty list's words for a filter and search. */
export function emptyText(kind: KindFilter, q: string): string {
  if (q.trim()) return `Nothing matches “${q.trim()}”.`;
  switch (kind) {
    case 'chat': return 'No chats with a sealed receipt yet.';
    case 'tool_run': return 'No tool runs with a sealed receipt yet.';
    case 'admin': return 'No admin actions with a sealed receipt yet.';
    default: return 'No sealed receipts yet.';
  }
}
