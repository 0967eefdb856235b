/**
 * Turn-event client: every emitter of the spec's "Turn events" table publishes through it.
 *
 * Events are queued in memory, sent in batches to the audit service (`POST /v1/turns/events`,
 * body `{events: TurnEvent[]}`) and retried with backoff while audit is down or restarting, so no
 * event is lost across an audit restart. Re-delivery is safe: audit keys events on
 * (tenant_id, turn_id, event_id) and treats a duplicate as a no-op.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { signStamp, servicePrincipal } from '../identity/principal.js';
import { ulidFactory } from '../identity/ulid.js';

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
  /** Largest batch per POST (default 500). */
  maxBatch?: number;
  /** Events kept while audit is unreachable before the oldest are dropped (default 200,000). */
  maxQueue?: number;
  /** Called with a count when the queue overflows (events lost) or audit rejects events. */
  onLoss?: (count: number, reason: string) => void;
}

const nextUlid = ulidFactory();

/** Batching, retrying publisher of turn events. */
export class TurnEventClient {
  private readonly opts: Required<Omit<TurnEventClientOptions, 'onLoss'>> & Pick<TurnEventClientOptions, 'onLoss'>;
  private readonly instance = randomUUID();
  private seq = 0;
  private queue: TurnEvent[] = [];
  private sending = false;
  private timer: NodeJS.Timeout | null = null;
  private backoffMs = 0;
  private closed = false;
  private readonly idleWaiters: Array<() => void> = [];
  /** Events ever queued, and events settled (delivered, or dropped and reported). */
  private emitted = 0;
  private settled = 0;
  private readonly settleWaiters: Array<{ target: number; resolve: (ok: boolean) => void }> = [];

  constructor(opts: TurnEventClientOptions) {
    this.opts = { maxBatch: 500, maxQueue: 200_000, ...opts };
  }

  /** Events waiting to be delivered. */
  get pending(): number { return this.queue.length; }

  /**
   * Queue an event for `turnId`. `payload` is serialised to `payload_json`.
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
    this.queue.push(event);
    this.emitted++;
    if (this.queue.length > this.opts.maxQueue) {
      const dropped = this.queue.length - this.opts.maxQueue;
      this.queue.splice(0, dropped);
      this.markSettled(dropped);
      this.opts.onLoss?.(dropped, 'queue overflow while audit unreachable');
    }
    // Batch for up to 20 ms: under load one POST carries hundreds of events.
    this.schedule(this.backoffMs || 20);
    return event.event_id;
  }

  private schedule(delay: number): void {
    if (this.timer || this.sending || this.closed && this.queue.length === 0) return;
    this.timer = setTimeout(() => { this.timer = null; void this.flush(); }, delay);
    this.timer.unref();
  }

  /** Send queued events now; resolves when this attempt ends (events stay queued on failure). */
  async flush(): Promise<boolean> {
    if (this.sending) return false;
    if (this.queue.length === 0) { this.notifyIdle(); return true; }
    this.sending = true;
    const batch = this.queue.slice(0, this.opts.maxBatch);
    let ok = false;
    try {
      const principal = signStamp(servicePrincipal(this.opts.service, this.opts.tenantId), this.opts.principalKeys);
      const res = await request(`${this.opts.auditUrl}/v1/turns/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-principal': principal },
        body: JSON.stringify({ events: batch }),
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      const text = await res.body.text();
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
    if (ok) {
      this.queue.splice(0, batch.length);
      this.markSettled(batch.length);
      this.backoffMs = 0;
      if (this.queue.length) this.schedule(0); else this.notifyIdle();
    } else {
      this.backoffMs = Math.min(this.backoffMs ? this.backoffMs * 2 : 100, 5000);
      this.schedule(this.backoffMs);
    }
    return ok;
  }

  private markSettled(n: number): void {
    this.settled += n;
    for (let i = this.settleWaiters.length - 1; i >= 0; i--) {
      const w = this.settleWaiters[i]!;
      if (this.settled >= w.target) { this.settleWaiters.splice(i, 1); w.resolve(true); }
    }
  }

  /**
   * Send now and wait until every event queued so far has reached audit (or `timeoutMs` passes).
   * An emitter calls this before it answers, so its events of a turn land before the gateway's
   * terminal event seals that turn.
   * @returns whether they were delivered in time (they stay queued and retried otherwise).
   */
  async deliver(timeoutMs = 2000): Promise<boolean> {
    const target = this.emitted;
    if (this.settled >= target) return true;
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
    return waiter;
  }

  private notifyIdle(): void {
    while (this.idleWaiters.length) this.idleWaiters.shift()!();
  }

  /** Resolve once the queue is empty, or after `timeoutMs`. Returns whether it drained. */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length > 0 && Date.now() < deadline) {
      if (this.timer) { clearTimeout(this.timer); this.timer = null; }
      const ok = await this.flush();
      if (!ok && this.queue.length) await new Promise((r) => setTimeout(r, Math.min(200, Math.max(0, deadline - Date.now()))));
    }
    return this.queue.length === 0;
  }

  /** Stop scheduling; pending events stay for `drain`. */
  close(): void {
    this.closed = true;
    if (this.timer) { clearTimeout(this.timer); this.timer = null; }
  }
}
