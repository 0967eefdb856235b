/**
 * The server-data cache without React (zustand's guidance: server data stays out of the UI store).
 * Entries are keyed by URL-like strings; each holds the last answer, the last error and whether a
 * load runs. `api/cache.ts` binds one store to React (`useQuery`); this module is plain TypeScript,
 * so it is unit-tested in Node (test/unit/renderer).
 */

/** State of one entry. Objects are replaced, never mutated, so React sees changes. */
export interface QueryState<T> { data: T | undefined; error: Error | null; loading: boolean; updatedAt: number }

/** Loads an entry's data. */
export type Fetcher<T> = () => Promise<T>;

interface Entry { state: QueryState<unknown>; fetcher: Fetcher<unknown> | null; listeners: Set<() => void>; inflight: Promise<void> | null }

/** State of a key nobody loaded yet. */
export const EMPTY_STATE: QueryState<never> = Object.freeze({ data: undefined, error: null, loading: true, updatedAt: 0 });

/** A cache of server answers with subscriptions, deduplicated loads and prefix invalidation. */
export class QueryStore {
  private readonly entries = new Map<string, Entry>();

  /** @param now clock in epoch ms (`updatedAt`; a test seam). */
  constructor(private readonly now: () => number = Date.now) {}

  private entry(key: string, fetcher?: Fetcher<unknown>): Entry {
    let e = this.entries.get(key);
    if (!e) {
      e = { state: EMPTY_STATE, fetcher: null, listeners: new Set(), inflight: null };
      this.entries.set(key, e);
    }
    // The latest fetcher wins (components hand a new closure each render).
    if (fetcher) e.fetcher = fetcher;
    return e;
  }

  private set(e: Entry, patch: Partial<QueryState<unknown>>): void {
    e.state = { ...e.state, ...patch };
    for (const fn of e.listeners) fn();
  }

  private run(e: Entry): Promise<void> {
    if (e.inflight) return e.inflight;
    const fetcher = e.fetcher;
    if (!fetcher) return Promise.resolve();
    if (!e.state.loading) this.set(e, { loading: true });
    e.inflight = fetcher().then(
      (data) => { this.set(e, { data, error: null, loading: false, updatedAt: this.now() }); },
      (error: unknown) => { this.set(e, { error: error instanceof Error ? error : new Error(String(error)), loading: false }); },
    ).finally(() => { e.inflight = null; });
    return e.inflight;
  }

  /** Current state of `key` (`EMPTY_STATE` when unknown). */
  state<T>(key: string): QueryState<T> {
    return (this.entries.get(key)?.state ?? EMPTY_STATE) as QueryState<T>;
  }

  /** Call `listener` whenever `key` changes; `fetcher`, when given, becomes the key's loader. @returns unsubscribe */
  subscribe(key: string, listener: () => void, fetcher?: Fetcher<unknown>): () => void {
    const e = this.entry(key, fetcher);
    e.listeners.add(listener);
    return () => { e.listeners.delete(listener); };
  }

  /** Load `key` (again) with its fetcher; concurrent calls share one load. */
  load(key: string, fetcher?: Fetcher<unknown>): Promise<void> {
    return this.run(this.entry(key, fetcher));
  }

  /** Load `key` unless it was loaded before or a load runs (first use). */
  ensure(key: string, fetcher?: Fetcher<unknown>): Promise<void> {
    const e = this.entry(key, fetcher);
    if (e.state.updatedAt === 0 && !e.inflight) return this.run(e);
    return e.inflight ?? Promise.resolve();
  }

  /** Refetch every entry whose key starts with `prefix` and that someone watches; forget the others. */
  invalidate(prefix: string): void {
    for (const [key, e] of this.entries) {
      if (!key.startsWith(prefix)) continue;
      if (e.listeners.size > 0) void this.run(e); else this.entries.delete(key);
    }
  }

  /** Put data in the cache without a fetch (e.g. the answer of a mutation), creating the entry if needed. */
  prime<T>(key: string, data: T): void {
    this.set(this.entry(key), { data, error: null, loading: false, updatedAt: this.now() });
  }

  /** Drop everything (sign-out). */
  clear(): void { this.entries.clear(); }

  /** Number of entries (tests and diagnostics). */
  get size(): number { return this.entries.size; }
}
