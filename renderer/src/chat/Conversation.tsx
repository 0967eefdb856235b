/**
 * One conversation: stored messages (`GET /v1/sessions/{id}`) plus the turns streamed in this
 * window, in a virtualised list (only the rows on screen are in the DOM, so 500 messages scroll
 * smoothly), and the composer.
 */
import { useEffect, useMemo, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useApp, NEW_CONV } from '../store';
import { useQuery } from '../api/cache';
import { ApiError } from '../api/http';
import type { MessageView, SessionDetail } from '../api/types';
import { fromStored, type ChatItem } from './model';
import { MessageRow } from './MessageRow';
import { Composer } from './Composer';
import type { LiveTurn } from './turn-reducer';

const NO_TURNS: LiveTurn[] = [];

/** Stored messages minus those of turns this window streamed (the live copy has more detail). */
export function mergeItems(stored: MessageView[], live: LiveTurn[]): ChatItem[] {
  const liveTurnIds = new Set(live.map((t) => t.turnId).filter(Boolean));
  const base = fromStored(stored.filter((m) => !m.turn_id || !liveTurnIds.has(m.turn_id)));
  return [...base, ...live.flatMap((t) => [t.user, t.answer])];
}

export function Conversation({ sessionId }: { sessionId: string | null }) {
  const key = sessionId ?? NEW_CONV;
  const detail = useQuery<SessionDetail>(sessionId ? `/v1/sessions/${encodeURIComponent(sessionId)}` : null);
  const live = useApp((s) => s.live[key] ?? NO_TURNS);
  const stored = useMemo(() => detail.data?.messages ?? [], [detail.data]);
  const title = detail.data?.title ?? null;
  const items = useMemo(() => mergeItems(stored, live), [stored, live]);
  const streaming = live.some((t) => t.status === 'streaming');

  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const v = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 120,
    overscan: 6,
    getItemKey: (i) => items[i]!.id,
  });

  // Follow the stream while the user is at the bottom; leave them be once they scroll up.
  const last = items.at(-1);
  useEffect(() => {
    if (stick.current && items.length) v.scrollToIndex(items.length - 1, { align: 'end' });
  }, [items.length, last?.content, last?.tools.length, last?.approvals.length, v]);

  const onScroll = (): void => {
    const el = scroller.current;
    if (el) stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
  };

  const lastUser = [...items].reverse().find((i) => i.role === 'user');
  const lastAnswerId = [...items].reverse().find((i) => i.role === 'assistant')?.id ?? null;
  const notFound = detail.error instanceof ApiError && detail.error.status === 404;

  return (
    <section className="conversation" aria-label={title || 'New chat'}>
      <div className="messages" ref={scroller} onScroll={onScroll} data-testid="messages">
        {items.length === 0 && (
          <div className="empty">
            {notFound ? <p>This chat does not exist (or is not yours).</p> : detail.loading && sessionId ? <p className="muted">Loading…</p> : (
              <>
                <h2>What are we working on?</h2>
                <p className="muted">Answers stream in; each one carries a receipt you can open and verify.</p>
              </>
            )}
          </div>
        )}
        <div style={{ height: v.getTotalSize(), position: 'relative', width: '100%' }}>
          {v.getVirtualItems().map((row) => {
            const it = items[row.index]!;
            return (
              <div key={row.key} data-index={row.index} ref={v.measureElement} className="row" style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${row.start}px)` }}>
                <MessageRow item={it} sessionId={sessionId} convKey={key} isLastAnswer={it.id === lastAnswerId} lastUserText={lastUser?.content ?? ''} busy={streaming} />
              </div>
            );
          })}
        </div>
      </div>
      <Composer convKey={key} streaming={streaming} />
    </section>
  );
}
