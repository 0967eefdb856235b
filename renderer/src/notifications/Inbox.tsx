/**
 * The notification inbox (issue 13 item 1): newest first, unread ones marked; a click marks one read
 * and follows its link (approval, document, chat, usage); "Mark all read". Used by the bell's
 * dropdown (`compact`: the first 20, a link to the page) and by the `/notifications` page (pages of
 * 50 with "Load more").
 */
import { useState } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api, ApiError } from '../api/http';
import type { NotificationView, Page } from '../api/types';
import { useAction } from '../app/use-action';
import { useApp } from '../store';
import { LIST_KEY, liveCount } from './live';
import { ago, notificationLink } from './links';

/** Mark one read (when unread) and refresh the list and the count. */
async function markRead(n: NotificationView): Promise<void> {
  if (n.read_at) return;
  await api(`/v1/notifications/${encodeURIComponent(n.id)}/read`, { method: 'POST' });
  invalidate(LIST_KEY);
  void liveCount.refresh();
}

function Item({ n, onOpen }: { n: NotificationView; onOpen: (n: NotificationView) => void }) {
  return (
    <li>
      <button type="button" data-testid="notif-item" className={`notif-item${n.read_at ? '' : ' unread'}`} onClick={() => onOpen(n)}
        aria-label={`${n.read_at ? '' : 'Unread: '}${n.title}`}>
        <span className="notif-title">{n.title}</span>
        {n.body && <span className="notif-body">{n.body}</span>}
        <span className="notif-when" title={new Date(n.created_at).toLocaleString()}>{ago(n.created_at)}</span>
      </button>
    </li>
  );
}

/** The inbox list. `onNavigate` runs after a click that leads somewhere (the dropdown closes). */
export function Inbox({ compact = false, onNavigate }: { compact?: boolean; onNavigate?: () => void }) {
  const limit = compact ? 20 : 50;
  const first = useQuery<Page<NotificationView>>(`${LIST_KEY}limit=${limit}`);
  const [more, setMore] = useState<NotificationView[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const navigated = useApp((s) => s.navigated);
  const act = useAction<'read' | 'all' | 'more'>();
  const items = [...(first.data?.items ?? []), ...more];
  const next = cursor === undefined ? first.data?.next_cursor ?? null : cursor;
  const unavailable = first.error instanceof ApiError && (first.error.status === 404 || first.error.status === 502);

  const open = (n: NotificationView): void => {
    void act.run(async () => {
      await markRead(n);
      const to = notificationLink(n);
      if (to) { navigated(to); onNavigate?.(); }
    }, 'read');
  };
  const readAll = (): void => {
    void act.run(async () => {
      await api('/v1/notifications/read-all', { method: 'POST' });
      setMore((xs) => xs.map((x) => (x.read_at ? x : { ...x, read_at: new Date().toISOString() })));
      invalidate(LIST_KEY);
      void liveCount.refresh();
    }, 'all');
  };
  const loadMore = (): void => {
    if (!next) return;
    void act.run(async () => {
      const page = await api<Page<NotificationView>>(`${LIST_KEY}limit=${limit}&cursor=${encodeURIComponent(next)}`);
      setMore((xs) => [...xs, ...page.items]);
      setCursor(page.next_cursor ?? null);
    }, 'more');
  };

  return (
    <div className={`notif-inbox${compact ? ' compact' : ''}`}>
      <div className="notif-head">
        {compact ? <strong>Notifications</strong> : <h1>Notifications</h1>}
        <button type="button" className="link" data-testid="notif-read-all" disabled={act.busy || !items.some((x) => !x.read_at)} onClick={readAll}>Mark all read</button>
      </div>
      {unavailable && <p className="muted">Notifications are not available on this server yet.</p>}
      {!unavailable && first.error && <p className="error">{first.error.message}</p>}
      {first.loading && !first.data && <p className="muted">Loading…</p>}
      {first.data && items.length === 0 && <p className="muted">Nothing new.</p>}
      <ul className="notif-list">{items.map((n) => <Item key={n.id} n={n} onOpen={open} />)}</ul>
      {act.error && <p className="error" role="alert">{act.error}</p>}
      {compact
        ? <div className="notif-foot"><button type="button" className="link" onClick={() => { navigated('/notifications'); onNavigate?.(); }}>See all</button></div>
        : next && <button type="button" className="link" disabled={act.busy} onClick={loadMore}>Load more</button>}
    </div>
  );
}
