/**
 * The app's server-data cache bound to React (zustand's guidance: server data stays out of the UI
 * store). Entries are keyed by URL-like strings; `useQuery` subscribes a component through
 * `useSyncExternalStore`, fetches on first use, and `invalidate(prefix)` refetches what a mutation
 * made stale. The store itself is `api/query-store.ts`.
 */
import { useCallback, useEffect, useRef, useSyncExternalStore } from 'react';
import { api } from './http';
import { EMPTY_STATE, QueryStore, type QueryState } from './query-store';

export type { QueryState } from './query-store';

/** The app's one cache. */
const queries = new QueryStore();

/** Refetch every entry whose key starts with `prefix` (and that someone still watches). */
export function invalidate(prefix: string): void { queries.invalidate(prefix); }

/** Put data in the cache without a fetch (e.g. the answer of a mutation). */
export function prime<T>(key: string, data: T): void { queries.prime(key, data); }

/** Drop everything (sign-out). */
export function clearCache(): void { queries.clear(); }

/** Options of `useQuery`. */
export interface QueryOptions {
  /** Fetch on first use (default true). False: watch the entry; someone else (or `refetch`) loads it. */
  enabled?: boolean;
}

/**
 * Subscribe to `key`, fetching it with `fetcher` (default: GET the key as a URL). `key` null = idle.
 * `refetch()` loads again.
 */
export function useQuery<T>(key: string | null, fetcher?: () => Promise<T>, opts: QueryOptions = {}): QueryState<T> & { refetch: () => Promise<void> } {
  // The key names the data; the fetcher is recreated every render and must not resubscribe, so a
  // stable loader per key calls the latest one.
  const latest = useRef(fetcher);
  useEffect(() => { latest.current = fetcher; });
  const load = useCallback(() => {
    const f = latest.current;
    return f ? f() : api<T>(key!);
  }, [key]);
  const subscribe = useCallback((fn: () => void) => (key ? queries.subscribe(key, fn, load) : () => {}), [key, load]);
  const snapshot = useCallback(() => (key ? queries.state<T>(key) : EMPTY_STATE), [key]);
  const state = useSyncExternalStore(subscribe, snapshot);
  const enabled = opts.enabled !== false;
  useEffect(() => {
    if (key && enabled) void queries.ensure(key, load);
  }, [key, enabled, load]);
  const refetch = useCallback(async () => {
    if (key) await queries.load(key, load);
  }, [key, load]);
  return { ...state, refetch };
}

/** Watch `key` without ever fetching it (data put there with `prime`, or loaded by another view). */
export function useCached<T>(key: string | null): T | undefined {
  const subscribe = useCallback((fn: () => void) => (key ? queries.subscribe(key, fn) : () => {}), [key]);
  const snapshot = useCallback(() => (key ? queries.state<T>(key) : EMPTY_STATE), [key]);
  return useSyncExternalStore(subscribe, snapshot).data;
}
