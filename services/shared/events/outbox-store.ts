/**
 * The durable turn-event outbox (issue 11 item 7): one small SQLite database per emitting service,
 * `<dbDir>/<service>-outbox.sqlite` (schema `migrations/turn-outbox/`), holding each turn event
 * from the moment it is emitted until audit acknowledged it. A `TurnEventQueue` for the
 * turn-event client (event-queue.ts); this file is the only one of `events/` that runs SQL.
 *
 * Durability: WAL with `synchronous=NORMAL` (the shared open). A commit has written its WAL frames
 * to the file (the operating system's cache) when `append` returns, so the event survives the
 * process being killed (SIGKILL, crash, OOM) — the failure the issue saw. What NORMAL does not
 * cover is an OS crash or power loss, which can roll back the last commits; `FULL` would cover it
 * at the price of one disk flush per commit, i.e. per request on the gateway's hot path, and the
 * audit database that receives the events runs NORMAL too (a power loss there loses its latest
 * rows as well, so FULL here would not make the receipt durable end to end). The database stays
 * consistent either way; an event lost that way seals its turn by the watermark, as before.
 */
import { openStore } from '../db/store.js';
import type { QueuedEvent, TurnEventQueue } from './event-queue.js';
import type { TurnEvent } from './turn-events.js';

/** Where the outbox lives. */
export interface TurnOutboxOptions {
  /** The service's database folder (`cfg.dbDir`), or `':memory:'` in tests. */
  dbDir: string;
  /** The repository's `migrations/` folder (`cfg.migrationsDir`). */
  migrationsDir: string;
  /** Emitting service: the file is `<dbDir>/<service>-outbox.sqlite`. */
  service: string;
}

/**
 * Open (create, migrate) the outbox of `service` with the events a previous process left in it.
 * @throws Error when the database cannot be opened or migrated.
 */
export function openTurnOutbox(opts: TurnOutboxOptions): TurnEventQueue {
  const store = openStore({ dbDir: opts.dbDir, migrationsDir: opts.migrationsDir, store: `${opts.service}-outbox`, schema: 'turn-outbox', vec: false }, (db) => {
    const insert = db.prepare<[number, string]>('INSERT INTO turn_event_outbox (created_ms, event_json) VALUES (?, ?)');
    return {
      appendAll: db.transaction((events: readonly TurnEvent[], nowMs: number): number => {
        let last = 0;
        for (const e of events) last = Number(insert.run(nowMs, JSON.stringify(e)).lastInsertRowid);
        return last;
      }),
      head: db.prepare<[number], { seq: number; event_json: string }>('SELECT seq, event_json FROM turn_event_outbox ORDER BY seq LIMIT ?'),
      oldest: db.prepare<[], { created_ms: number }>('SELECT created_ms FROM turn_event_outbox ORDER BY seq LIMIT 1'),
      removeThrough: db.prepare<[number]>('DELETE FROM turn_event_outbox WHERE seq <= ?'),
      dropOldest: db.prepare<[number]>('DELETE FROM turn_event_outbox WHERE seq IN (SELECT seq FROM turn_event_outbox ORDER BY seq LIMIT ?)'),
      dropOlderThan: db.prepare<[number]>('DELETE FROM turn_event_outbox WHERE created_ms < ?'),
      count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM turn_event_outbox'),
    };
  });
  // count(*) walks the table: read it once, then keep it in step with every change.
  let size = store.count.get()!.n;
  return {
    get size(): number { return size; },
    get isOpen(): boolean { return store.isOpen; },
    append(events: readonly TurnEvent[], nowMs: number): number {
      if (events.length === 0) return 0;
      // One transaction: one WAL commit for however many events (the gateway's hot path).
      const last = store.appendAll(events, Math.floor(nowMs));
      size += events.length;
      return last;
    },
    head(limit: number): QueuedEvent[] {
      return store.head.all(limit).map((r) => ({ position: r.seq, event: JSON.parse(r.event_json) as TurnEvent }));
    },
    removeThrough(position: number): number {
      const n = store.removeThrough.run(position).changes;
      size -= n;
      return n;
    },
    dropOldest(count: number): number {
      if (count <= 0) return 0;
      const n = store.dropOldest.run(count).changes;
      size -= n;
      return n;
    },
    dropOlderThan(cutoffMs: number): number {
      const oldest = store.oldest.get();
      if (!oldest || oldest.created_ms >= cutoffMs) return 0;
      const n = store.dropOlderThan.run(Math.floor(cutoffMs)).changes;
      size -= n;
      return n;
    },
    close(): void { store.close(); },
  };
}
