/**
 * Code that runs synchronously over SQLite and asynchronously over PostgreSQL (issue 21 item 1).
 *
 * A writer job (ingestion, sealing, a checkpoint, the egress cursor) must stay synchronous on
 * SQLite: the group-committing `ChainWriter` runs every job of a batch inside one better-sqlite3
 * transaction, which cannot span an `await`. On PostgreSQL the same job awaits every store call
 * inside the tenant's locked transaction. One job body serves both: it is a generator that
 * `yield* aw(port.call(...))` at every store call; `drive` steps it and only turns asynchronous
 * at the first value that is a promise. Over SQLite no promise ever appears, so the job runs to its
 * end in the caller's stack frame (same statements, same order, same transaction).
 */
import type { Awaitable } from '../../../shared/db/async-store.js';

export type { Awaitable } from '../../../shared/db/async-store.js';

/** A job body: yields the port calls' answers (values or promises) and gets their settled values back. */
export type Steps<T> = Generator<unknown, T, unknown>;

/** Await a port's answer inside a `Steps` body: `const t = yield* aw(store.get(id))`. */
export function* aw<T>(v: Awaitable<T>): Steps<T> {
  return (yield v) as T;
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

/**
 * Run a `Steps` body: synchronously while every yielded value is plain (a sync throw propagates as
 * a throw), asynchronously from the first promise on (then the result is a promise and a failure
 * rejects it; a rejected port call is thrown into the body at its `yield`).
 */
export function drive<T>(g: Steps<T>): Awaitable<T> {
  let r = g.next();
  for (;;) {
    if (r.done) return r.value;
    if (isThenable(r.value)) return finishAsync(g, r.value);
    r = g.next(r.value);
  }
}

async function finishAsync<T>(g: Steps<T>, first: PromiseLike<unknown>): Promise<T> {
  let pending: unknown = first;
  for (;;) {
    let r: IteratorResult<unknown, T>;
    try {
      const v = await pending;
      r = g.next(v);
    } catch (err) {
      r = g.throw(err);
    }
    if (r.done) return r.value;
    pending = r.value;
  }
}

/**
 * Run a `Steps` body that must finish now (inside a SQLite writer transaction).
 * @throws Error when a port answered with a promise (an async port inside a synchronous transaction).
 */
export function driveSync<T>(g: Steps<T>): T {
  const v = drive(g);
  if (isThenable(v)) {
    (v as Promise<T>).catch(() => undefined);
    throw new Error('an asynchronous store call inside a synchronous writer transaction');
  }
  return v;
}
