/**
 * Where a turn-event client keeps events until audit acknowledges them (spec "Turn events";
 * issue 11 item 7). Two implementations stand behind one interface:
 *
 * - `MemoryEventQueue` (here): an array; events die with the process. The default of the
 *   emitters that deliver before they answer (guardrail, memory, knowledge).
 * - the turn-event outbox (`outbox-store.ts`): a small SQLite table, so an event emitted before an
 *   answer completed is delivered after a crash and restart (gateway, agent runtime).
 *
 * Positions are increasing integers, never reused while the queue lives (the outbox keeps them
 * across restarts): the client delivers from the head in position order and waits on positions.
 */
import type { TurnEvent } from './turn-events.js';

/** One waiting event and its position in the queue. */
export interface QueuedEvent {
  position: number;
  event: TurnEvent;
}

/** An ordered queue of turn events waiting for audit. Every method is synchronous. */
export interface TurnEventQueue {
  /** Events waiting. */
  readonly size: number;
  /** False once closed (a durable queue's database is shut). */
  readonly isOpen: boolean;
  /**
   * Append events in order, all or none (a durable queue: one transaction, on disk when this returns).
   * @param nowMs enqueue time, Unix ms (age cap).
   * @returns the position of the last one (positions grow with every event); 0 for no events.
   * @throws Error when the queue is closed or the write fails (nothing was appended).
   */
  append(events: readonly TurnEvent[], nowMs: number): number;
  /** Up to `limit` oldest events, oldest first. */
  head(limit: number): QueuedEvent[];
  /** Remove every event at or before `position` (acknowledged). @returns how many were removed. */
  removeThrough(position: number): number;
  /** Drop the `count` oldest events (over the size cap). @returns how many were dropped. */
  dropOldest(count: number): number;
  /** Drop events enqueued before `cutoffMs` (Unix ms; over the age cap). @returns how many were dropped. */
  dropOlderThan(cutoffMs: number): number;
  /** Release the queue (idempotent). */
  close(): void;
  /**
   * Only a queue whose `append` stores in the background (the PostgreSQL outbox, outbox-pg.ts):
   * resolves when everything appended so far is stored; false when a write failed (being retried).
   * Absent: `append` is already durable (SQLite) or never is (memory).
   */
  durable?(): Promise<boolean>;
}

/** The in-memory queue: what the turn-event client always had; lost on a crash. */
export class MemoryEventQueue implements TurnEventQueue {
  private items: Array<QueuedEvent & { at: number }> = [];
  private next = 1;

  /** Events waiting. */
  get size(): number { return this.items.length; }

  /** Always true: there is nothing to close. */
  get isOpen(): boolean { return true; }

  /** Append; returns the last position. */
  append(events: readonly TurnEvent[], nowMs: number): number {
    let position = 0;
    for (const event of events) {
      position = this.next++;
      this.items.push({ position, event, at: nowMs });
    }
    return position;
  }

  /** The oldest `limit` events. */
  head(limit: number): QueuedEvent[] {
    return this.items.slice(0, limit).map(({ position, event }) => ({ position, event }));
  }

  /** Remove through `position`. */
  removeThrough(position: number): number {
    let n = 0;
    while (n < this.items.length && this.items[n]!.position <= position) n++;
    this.items.splice(0, n);
    return n;
  }

  /** Drop the `count` oldest. */
  dropOldest(count: number): number {
    return this.items.splice(0, Math.max(0, count)).length;
  }

  /** Drop those enqueued before `cutoffMs`. */
  dropOlderThan(cutoffMs: number): number {
    const before = this.items.length;
    this.items = this.items.filter((i) => i.at >= cutoffMs);
    return before - this.items.length;
  }

  /** Nothing to release. */
  close(): void { /* memory only */ }
}
