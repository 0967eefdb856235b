/**
 * Turn-event client: every emitter of the spec's "Turn events" table publishes through it.
 *
 * Events are queued, sent in order in batches to the audit service (`POST /v1/turns/events`,
 * body `{events: TurnEvent[]}`, at most 5000) and retried with backoff while audit is down or
 * restarting, so no event is lost across an audit restart. The queue is in memory by default; the
 * gateway and the agent runtime give it their durable outbox (outbox-store.ts, issue 11 item 7):
 * `emit` stages an event; `commit` (the gateway, as an answer is about to complete), `deliver`
 * (the other emitters, before they answer) and every send write what is staged in one transaction,
 * so an emitter has a turn's events on disk before its answer completes, at one commit per answer.
 * Events are deleted only once audit acknowledged them, and a new process delivers what the
 * previous one left at once. Re-delivery is safe: audit keys events on (tenant_id, turn_id,
 * event_id) and treats a duplicate as a no-op, so delivery is at least once. Both queues are
 * bounded (`maxQueue`, and `maxAgeMs` when given); whatever is dropped is reported through
 * `onLoss`, and its turns seal by the watermark as `failed`.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { signStamp, servicePrincipal } from '../identity/principal.js';
import { ulidFactory } from '../identity/ulid.js';
import { MemoryEventQueue, type TurnEventQueue } from './event-queue.js';
import { TurnEventStream } from './grpc-publisher.js';

/** Payload types of the spec's table (plus the contract-only cap token events). */
export type TurnPayloadType =
  | 'turn_started' | 'turn_sealed' | 'turn_failed'
  | 'prompt_generated' | 'tool_called' | 'tool_returned' | 'model_invoked' | 'model_response'
  | 'guardrail_verdict' | 'memory_op' | 'rag_chunks_retrieved';

/** A turn event on the wire (spec: "Turn event"). `payload_json` is the stored JSON text. */
export interface TurnEvent {
  turn_id: string;
  event_id: string;
  tenant_id: string;
  principal_id: string;
  emitter_service: string;
  emitter_instance: string | null;
  /** RFC 3339 UTC with milliseconds. */
  occurred_at: string;
  sequence_in_service: number;
  payload_type: TurnPayloadType;
  payload_json: string;
}

/** Options of the client. */
export interface TurnEventClientOptions {
  /** Emitting service name (`gateway`, `agent-runtime`, ...). */
  service: string;
  /** Base URL of the audit service. */
  auditUrl: string;
  tenantId: string;
  principalKeys: readonly string[];
  /** Where events wait for audit (default: in memory; the durable outbox from `openTurnOutbox`). */
  queue?: TurnEventQueue;
  /** Largest batch per POST (default 500; audit takes at most 5000). */
  maxBatch?: number;
  /** Events kept while audit is unreachable before the oldest are dropped (default 200,000). */
  maxQueue?: number;
  /** Events older than this are dropped before a send, ms (default: no age limit). */
  maxAgeMs?: number;
  /** How long a new event waits for others to share its POST, ms (default 20; a test seam). */
  batchDelayMs?: number;
  /** Called with a count when events are dropped (queue bounds) or audit rejects events. */
  onLoss?: (count: number, reason: string) => void;
  /** Called once at construction when the queue holds events a previous process left. */
  onResume?: (count: number) => void;
  /**
   * Audit's gRPC `host:port` (issue 20 item 3): batches go over the `PublishTurnEvents` stream, and
   * over HTTP when the stream fails. Absent or null: HTTP only.
   */
  auditGrpc?: string | null;
  /** Called with the transport of each delivered batch (`grpc` / `http`; tests and the bench). */
  onBatch?: (transport: 'grpc' | 'http', events: number) => void;
}

const nextUlid = ulidFactory();

/** Batching, retrying, ordered publisher of turn events over a (possibly durable) queue. */
export class TurnEventClient {
  private readonly opts: Required<Omit<TurnEventClientOptions, 'onLoss' | 'onResume' | 'queue' | 'maxAgeMs' | 'auditGrpc' | 'onBatch'>>
    & Pick<TurnEventClientOptions, 'onLoss' | 'maxAgeMs' | 'onBatch'>;
  /** The gRPC stream to audit, when `auditGrpc` was given (issue 20 item 3). */
  private readonly stream: TurnEventStream | null;
  private readonly queue: TurnEventQueue;
  private readonly instance = randomUUID();
  private seq = 0;
  private sending = false;
  private timer: NodeJS.Timeout | null = null;
  private backoffMs = 0;
  private closed = false;
  private readonly idleWaiters: Array<() => void> = [];
  /** Position of the last event this client queued, and the position through which every event is gone (delivered or dropped). */
  private lastPosition = 0;
  private settledThrough = 0;
  private readonly settleWaiters: Array<{ target: number; resolve: (ok: boolean) => void }> = [];
  /** Emitted, not yet in the queue (until `commit`, `deliver` or the next send). */
  private staged: TurnEvent[] = [];

  constructor(opts: TurnEventClientOptions) {
    const { queue, onResume, auditGrpc, ...rest } = opts;
    this.opts = { maxBatch: 500, maxQueue: 200_000, batchDelayMs: 20, ...rest };
    this.stream = auditGrpc ? new TurnEventStream(auditGrpc, { service: opts.service, tenantId: opts.tenantId, principalKeys: opts.principalKeys }) : null;
    this.queue = queue ?? new MemoryEventQueue();
    if (this.queue.size > 0) {
      // What a previous process left (it was killed, or audit was away at its stop): send now.
      onResume?.(this.queue.size);
      this.trim(Date.now());
      this.schedule(0);
    }
  }

  /** Events waiting to be delivered. */
  get pending(): number { return this.staged.length + (this.queue.isOpen ? this.queue.size : 0); }

  /**
   * Emit an event for `turnId`: staged in memory, and written to the queue with every other staged
   * event by the next `commit`, `deliver` or send attempt (`batchDelayMs` later, or after the current
   * backoff while audit is away). An emitter whose
   * answer is about to complete calls `commit` (or `deliver`) first, so the events of an answered
   * turn are in the outbox before the client has the answer. `payload` is serialised to
   * `payload_json`. Never throws.
   * @returns the event id (ULID).
   */
  emit(turnId: string, principalId: string, payloadType: TurnPayloadType, payload: unknown): string {
    const event: TurnEvent = {
      turn_id: turnId,
      event_id: nextUlid(),
      tenant_id: this.opts.tenantId,
      principal_id: principalId,
      emitter_service: this.opts.service,
      emitter_instance: this.instance,
      occurred_at: new Date().toISOString(),
      sequence_in_service: ++this.seq,
      payload_type: payloadType,
      payload_json: JSON.stringify(payload ?? {}),
    };
    this.staged.push(event);
    // Batch for up to `batchDelayMs`: under load one POST carries hundreds of events.
    this.schedule(this.backoffMs || this.opts.batchDelayMs);
    return event.event_id;
  }

  /**
   * Write every staged event to the queue now, in emission order and one transaction (with the
   * durable outbox: on disk when this returns). The gateway calls it as an answer is about to
   * complete; `deliver` and every send call it first. Never throws: events the queue cannot take
   * (closed, or a failing disk) are reported through `onLoss` and their turns seal by the watermark.
   */
  commit(): void {
    if (this.staged.length === 0) return;
    const events = this.staged;
    this.staged = [];
    if (!this.queue.isOpen) {
      this.opts.onLoss?.(events.length, 'emitted after the outbox closed');
      return;
    }
    try {
      this.lastPosition = this.queue.append(events, Date.now());
    } catch (err) {
      this.opts.onLoss?.(events.length, `the outbox could not store them (${(err as Error).message})`);
      return;
    }
    if (this.queue.size > this.opts.maxQueue) {
      try {
        const dropped = this.queue.dropOldest(this.queue.size - this.opts.maxQueue);
        this.afterRemoval();
        this.opts.onLoss?.(dropped, `queue over ${this.opts.maxQueue} events while audit unreachable; the oldest were dropped`);
      } catch { /* over the bound until the next commit succeeds */ }
    }
  }

  /**
   * `commit`, then, when the queue stores in the background (PostgreSQL), a promise that resolves
   * once what was committed is stored (false: the write failed and is retried; its turns seal by the
   * watermark if this process dies first). Null when `commit` alone was durable (SQLite) or the
   * queue is memory: nothing to wait for. The gateway holds an answer's last byte on it (issue 11
   * item 7, issue 21 item 1).
   */
  commitDurable(): Promise<boolean> | null {
    this.commit();
    return this.queue.durable ? this.queue.durable() : null;
  }

  private schedule(delay: number): void {
    if (this.timer || this.sending || this.closed && this.pending === 0) return;
    this.timer = setTimeout(() => { this.timer = null; void this.flush(); }, delay);
    this.timer.unref();
  }

  /** Drop what is older than `maxAgeMs` (reported through `onLoss`). */
  private trim(nowMs: number): void {
    if (this.opts.maxAgeMs === undefined || !this.queue.isOpen) return;
    const dropped = this.queue.dropOlderThan(nowMs - this.opts.maxAgeMs);
    if (dropped > 0) {
      this.afterRemoval();
      this.opts.onLoss?.(dropped, `older than ${Math.round(this.opts.maxAgeMs / 1000)} s in the queue; dropped`);
    }
  }

  /** Send the oldest queued events now; resolves when this attempt ends (events stay queued on failure). */
  async flush(): Promise<boolean> {
    if (this.sending) return false;
    if (this.pending === 0) { this.notifyIdle(); return true; }
    let batch;
    try {
      this.commit();
      this.trim(Date.now());
      batch = this.queue.head(this.opts.maxBatch);
    } catch {
      // The outbox cannot be read now (disk error): the events stay; try again later.
      this.retryLater();
      return false;
    }
    if (batch.length === 0) { this.notifyIdle(); return true; }
    this.sending = true;
    let ok = false;
    try {
      const res = await this.post(batch.map((b) => b.event));
      const text = res.text;
      if (res.statusCode >= 200 && res.statusCode < 300) {
        ok = true;
        try {
          const parsed = JSON.parse(text) as { rejected?: unknown[] };
          if (Array.isArray(parsed.rejected) && parsed.rejected.length > 0) this.opts.onLoss?.(parsed.rejected.length, 'rejected by audit');
        } catch { /* a 2xx without JSON still means accepted */ }
      } else if (res.statusCode === 400 || res.statusCode === 413) {
        // The batch itself is unacceptable: retrying cannot help. Drop it and say so.
        ok = true;
        this.opts.onLoss?.(batch.length, `audit answered ${res.statusCode}`);
      }
    } catch {
      ok = false;
    }
    this.sending = false;
    // The owner may have closed the queue while the POST was out (a drain that timed out).
    if (!this.queue.isOpen) return ok;
    if (ok) {
      try {
        this.queue.removeThrough(batch[batch.length - 1]!.position);
        this.afterRemoval();
      } catch {
        // Delivered but still queued: sent again later, which audit treats as duplicates.
        this.retryLater();
        return ok;
      }
      this.backoffMs = 0;
      if (this.pending) this.schedule(0); else this.notifyIdle();
    } else {
      this.retryLater();
    }
    return ok;
  }

  /**
   * Deliver one batch: over the gRPC stream when there is one, else (or when the stream fails) as
   * `POST /v1/turns/events`; either way the route's status and body. Re-delivery is idempotent.
   * @throws when audit cannot be reached over HTTP either.
   */
  private async post(events: TurnEvent[]): Promise<{ statusCode: number; text: string }> {
    if (this.stream) {
      try {
        const a = await this.stream.send(events);
        this.opts.onBatch?.('grpc', events.length);
        return a;
      } catch { /* HTTP below */ }
    }
    const principal = signStamp(servicePrincipal(this.opts.service, this.opts.tenantId), this.opts.principalKeys);
    const res = await request(`${this.opts.auditUrl}/v1/turns/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-principal': principal },
      body: JSON.stringify({ events }),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await res.body.text();
    this.opts.onBatch?.('http', events.length);
    return { statusCode: res.statusCode, text };
  }

  /** Back off (100 ms doubling to 5 s) and try again. */
  private retryLater(): void {
    this.backoffMs = Math.min(this.backoffMs ? this.backoffMs * 2 : 100, 5000);
    this.schedule(this.backoffMs);
  }

  /** After events left the queue: advance `settledThrough` and wake the `deliver` callers it satisfies. */
  private afterRemoval(): void {
    const first = this.queue.head(1)[0];
    this.settledThrough = Math.max(this.settledThrough, first ? first.position - 1 : this.lastPosition);
    for (let i = this.settleWaiters.length - 1; i >= 0; i--) {
      const w = this.settleWaiters[i]!;
      if (this.settledThrough >= w.target) { this.settleWaiters.splice(i, 1); w.resolve(true); }
    }
  }

  /**
   * Commit, send now and wait until every event emitted so far has reached audit (or `timeoutMs`
   * passes).
   * An emitter calls this before it answers, so its events of a turn land before the gateway's
   * terminal event seals that turn.
   * @returns whether they were delivered in time (they stay queued and retried otherwise).
   */
  async deliver(timeoutMs = 2000): Promise<boolean> {
    this.commit();
    const target = this.lastPosition;
    if (this.settledThrough >= target) return true;
    const waiter = new Promise<boolean>((resolve) => {
      const entry = { target, resolve };
      this.settleWaiters.push(entry);
      setTimeout(() => {
        const i = this.settleWaiters.indexOf(entry);
        if (i >= 0) { this.settleWaiters.splice(i, 1); resolve(false); }
      }, timeoutMs).unref();
    });
    if (this.timer && !this.backoffMs) { clearTimeout(this.timer); this.timer = null; }
    if (!this.timer) void this.flush();
    // Not acknowledged in time on a background-storing queue (PostgreSQL): at least stored before this answers.
    if (!this.queue.durable || await waiter) return waiter;
    await this.queue.durable();
    return false;
  }

  private notifyIdle(): void {
    while (this.idleWaiters.length) this.idleWaiters.shift()!();
  }

  /** Resolve once the queue is empty, or after `timeoutMs`. Returns whether it drained. */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.pending > 0 && Date.now() < deadline) {
      if (this.timer) { clearTimeout(this.timer); this.timer = null; }
      const ok = await this.flush();
      if (!ok && this.pending) await new Promise((r) => setTimeout(r, Math.min(200, Math.max(0, deadline - Date.now()))));
    }
    return this.pending === 0;
  }

  /** Stop scheduling; pending events stay for `drain` (and, in a durable queue, for the next start). */
  close(): void {
    this.closed = true;
    if (this.timer) { clearTimeout(this.timer); this.timer = null; }
  }

  /**
   * Stop: `close`, `drain` for up to `timeoutMs`, then release the queue (a durable queue keeps
   * what is left for the next start). @returns whether everything was delivered.
   */
  async shutdown(timeoutMs: number): Promise<boolean> {
    this.close();
    const drained = await this.drain(timeoutMs);
    this.commit();
    this.queue.close();
    this.stream?.close();
    return drained;
  }
}
