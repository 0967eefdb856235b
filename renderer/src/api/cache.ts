/**
 * A small server-data cache (zustand's guidance: server data stays out of the UI store). Entries are
 * keyed by URL-like strings; `useQuery` subscribes a component through `useSyncExternalStore`,
 * fetches on first use, and `invalidate(prefix)` refetches what a mutation made stale.
 */
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { api } from './http';

/** State of one entry. Objects are replaced, never mutated, so React sees changes. */
export interface QueryState<T> { data: T | undefined; error: Error | null; loading: boolean; updatedAt: number }

interface Entry { state: QueryState<unknown>; fetcher: () => Promise<unknown>; listeners: Set<() => void>; inflight: Promise<void> | null }

const entries = new Map<string, Entry>();
const EMPTY: QueryState<never> = Object.freeze({ data: undefined, error: null, loading: true, updatedAt: 0 });

function entry(key: string, fetcher: () => Promise<unknown>): Entry {
  let e = entries.get(key);
  if (!e) {
    e = { state: EMPTY, fetcher, listeners: new Set(), inflight: null };
    entries.set(key, e);
  }
  e.fetcher = fetcher;
  return e;
}

function set(e: Entry, patch: Partial<QueryState<unknown>>): void {
  e.state = { ...e.state, ...patch };
  for (const fn of e.listeners) fn();
}

function load(e: Entry): Promise<void> {
  if (e.inflight) return e.inflight;
  if (!e.state.loading) set(e, { loading: true });
  e.inflight = e.fetcher().then(
    (data) => { set(e, { data, error: null, loading: false, updatedAt: Date.now() }); },
    (error: unknown) => { set(e, { error: error instanceof Error ? error : new Error(String(error)), loading: false }); },
  ).finally(() => { e.inflight = null; });
  return e.inflight;
}

/** Refetch every entry whose key starts with `prefix` (and that someone still watches). */
export function invalidate(prefix: string): void {
  for (const [key, e] of entries) {
    if (!key.startsWith(prefix)) continue;
    if (e.listeners.size > 0) void load(e); else entries.delete(key);
  }
}

/** Put data in the cache without a fetch (e.g. the answer of a mutation). */
export function prime<T>(key: string, data: T): void {
  const e = entries.get(key);
  if (e) set(e, { data, error: null, loading: false, updatedAt: Date.now() });
}

/** Drop everything (sign-out). */
export function clearCache(): void { entries.clear(); }

/**
 * Subscribe to `key`, fetching it with `fetcher` (default: GET the key as a URL). `key` null = idle.
 * `refetch()` loads again.
 */
export function useQuery<T>(key: string | null, fetcher?: () => Promise<T>): QueryState<T> & { refetch: () => Promise<void> } {
  const subscribe = useCallback((fn: () => void) => {
    if (!key) return () => {};
    const e = entry(key, fetcher ?? (() => api<T>(key)));
    e.listeners.add(fn);
    return () => { e.listeners.delete(fn); };
    // The key names the data; the fetcher is recreated every render and must not resubscribe.
  }, [key]);
  const snapshot = useCallback(() => (key ? entries.get(key)?.state ?? EMPTY : EMPTY), [key]);
  const state = useSyncExternalStore(subscribe, snapshot) as QueryState<T>;
  useEffect(() => {
    if (!key) return;
    const e = entry(key, fetcher ?? (() => api<T>(key)));
    if (e.state.updatedAt === 0 && !e.inflight) void load(e);
  }, [key]);
  const refetch = useCallback(async () => {
    if (!key) return;
    await load(entry(key, fetcher ?? (() => api<T>(key))));
  }, [key]);
  return { ...state, refetch };
}
