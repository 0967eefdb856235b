/**
 * The unread count, live (issue 13 item 1): one stream per signed-in app, `GET
 * /v1/notifications/stream` read with `fetch` through `apiFetch` (bearer and refresh; EventSource
 * cannot send headers), its `unread_count` records setting the count and its `notification` records
 * refreshing the inbox list. When the stream ends (the server closes it every ten minutes) it opens
 * again; when it cannot be opened the count is polled every 15 s and the stream is tried again every
 * minute. It runs while a component watches it (`useUnreadCount`), so signing out stops it.
 */
import { useSyncExternalStore } from 'react';
import { invalidate } from '../api/cache';
import { api, apiFetch } from '../api/http';
import { SseReader } from './sse';

/** Poll interval of the fallback, ms. */
export const POLL_MS = 15_000;
/** How long the fallback polls before the stream is tried again, ms. */
const RETRY_STREAM_MS = 60_000;
/** A stream that ended sooner than this after it opened waits out the rest before the next, ms. */
const MIN_STREAM_MS = 5_000;
/** The inbox list's cache prefix. */
export const LIST_KEY = '/v1/notifications?';

type Mode = 'idle' | 'stream' | 'poll';

class LiveCount {
  count: number | null = null;
  mode: Mode = 'idle';
  private readonly listeners = new Set<() => void>();
  private ac: AbortController | null = null;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    if (this.listeners.size === 1) this.start();
    return () => {
      this.listeners.delete(fn);
      if (this.listeners.size === 0) this.stop();
    };
  };

  snapshot = (): number | null => this.count;

  /** Fetch the count now (after a mark while polling; harmless while streaming). */
  async refresh(): Promise<void> {
    try {
      this.set((await api<{ count: number }>('/v1/notifications/unread-count')).count);
    } catch { /* the next poll or stream record corrects it */ }
  }

  private set(n: number): void {
    if (n === this.count) return;
    this.count = n;
    for (const l of this.listeners) l();
  }

  private start(): void {
    this.stop();
    const ac = new AbortController();
    this.ac = ac;
    void this.stream(ac.signal);
  }

  private stop(): void {
    this.ac?.abort();
    this.ac = null;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.pollTimer = null;
    this.retryTimer = null;
    this.mode = 'idle';
  }

  private async stream(signal: AbortSignal): Promise<void> {
    let opened = false;
    const began = Date.now();
    try {
      const res = await apiFetch('/v1/notifications/stream', { headers: { accept: 'text/event-stream' }, signal });
      if (!res.body) throw new Error('no stream body');
      opened = true;
      this.mode = 'stream';
      const reader = res.body.getReader();
      const dec = new TextDecoder();
      const sse = new SseReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        for (const r of sse.push(dec.decode(value, { stream: true }))) {
          if (r.event === 'unread_count') this.set((JSON.parse(r.data) as { count: number }).count);
          else if (r.event === 'notification') invalidate(LIST_KEY);
        }
      }
    } catch { /* aborted, refused or broken: below */ }
    if (signal.aborted) return;
    // A stream that ran and ended opens again at once; one that could not open falls back to polling.
    if (opened) {
      // Not in a tight loop when something closes streams at once.
      const wait = Math.max(0, MIN_STREAM_MS - (Date.now() - began));
      this.retryTimer = setTimeout(() => { if (!signal.aborted) void this.stream(signal); }, wait);
      return;
    }
    this.poll(signal);
  }

  private poll(signal: AbortSignal): void {
    this.mode = 'poll';
    void this.refresh();
    this.pollTimer = setInterval(() => { void this.refresh(); invalidate(LIST_KEY); }, POLL_MS);
    this.retryTimer = setTimeout(() => {
      if (this.pollTimer) clearInterval(this.pollTimer);
      this.pollTimer = null;
      if (!signal.aborted) void this.stream(signal);
    }, RETRY_STREAM_MS);
  }
}

/** The app's one live count. */
export const liveCount = new LiveCount();

/** The unread count (null before the first answer), kept live while the caller is mounted. */
export function useUnreadCount(): number | null {
  return useSyncExternalStore(liveCount.subscribe, liveCount.snapshot);
}
