/**
 * Work that must run after the current transaction ends (issue 21 item 1). On SQLite a transaction
 * finishes within the macrotask that began it, so `setImmediate` was "after the commit"; on
 * PostgreSQL a transaction spans round trips, and a callback scheduled inside it would both read
 * the state before the commit and inherit the transaction's connection (AsyncLocalStorage). `tx`
 * wraps the store's `txAsync` and collects the callbacks `defer` receives inside it; they are
 * scheduled (`setImmediate`) once the outermost transaction has committed or rolled back, from
 * outside it. Outside a transaction `defer` is `setImmediate`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AsyncTransactor } from '../../../shared/db/async-store.js';

/** A transactor whose deferred callbacks wait for its end. */
export class AfterCommit {
  private readonly frames = new AsyncLocalStorage<Array<() => void>>();

  /** @param inner the store's transaction (`store.txAsync`). */
  constructor(private readonly inner: AsyncTransactor) {}

  /** `inner`, collecting `defer`red callbacks until the outermost transaction ends (nested: joins it). */
  readonly tx: AsyncTransactor = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (this.frames.getStore()) return this.inner(fn);
    const later: Array<() => void> = [];
    try {
      return await this.frames.run(later, () => this.inner(fn));
    } finally {
      for (const f of later) setImmediate(f);
    }
  };

  /** Run `fn` after the current transaction ends (outside one: after the current work). */
  readonly defer = (fn: () => void): void => {
    const later = this.frames.getStore();
    if (later) later.push(fn); else setImmediate(fn);
  };
}
