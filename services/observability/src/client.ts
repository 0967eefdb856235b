/**
 * THE client other services use to call observability (DESIGN.md: a service imports another only
 * through its `contracts.ts` or `client.ts`): W3C Trace Context helpers, a batching span exporter
 * (`POST /v1/traces/spans`), the generation reporter (`POST /v1/generations`, queued and retried) and
 * the budget check (`GET /v1/internal/budgets/{tenant}`, cached briefly, failing open), all with the
 * calling service's principal from the one cached service stamp.
 *
 * Trace Context (W3C, level 1): `traceparent: 00-<32 hex trace id>-<16 hex parent span id>-<2 hex flags>`;
 * all-zero ids and version `ff` are invalid. A service accepts an inbound traceparent, records its
 * own span as a child, and sends a new traceparent naming that span on every outbound call.
 */
import { randomBytes } from 'node:crypto';
import { Pool, request, type Dispatcher } from 'undici';
import { serviceStamp } from '../../shared/identity/service-stamp.js';
import { withServiceTokens } from '../../shared/identity/service-token-dispatch.js';
import type { BudgetStatus, GenerationInput, SpanRecord } from './contracts.js';

export type { SpanRecord } from './contracts.js';

/** A parsed traceparent. */
export interface TraceContext {
  /** 32 lowercase hex. */
  traceId: string;
  /** 16 lowercase hex: the caller's span. */
  spanId: string;
  sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** Parse a `traceparent` header; null when absent or invalid (the caller then starts a new trace). */
export function parseTraceparent(value: string | string[] | undefined): TraceContext | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (typeof v !== 'string') return null;
  const m = TRACEPARENT.exec(v.trim().toLowerCase());
  if (!m) return null;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null;
  if (/^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return null;
  return { traceId: traceId!, spanId: spanId!, sampled: (parseInt(flags!, 16) & 1) === 1 };
}

/** Format a version-00 traceparent. */
export function formatTraceparent(traceId: string, spanId: string, sampled = true): string {
  return `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
}

/** A new random 16-byte trace id (hex). */
export function newTraceId(): string { return randomBytes(16).toString('hex'); }

/** A new random 8-byte span id (hex). */
export function newSpanId(): string { return randomBytes(8).toString('hex'); }

/** A span being timed; `end()` hands it to the sink once. */
export class ActiveSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  private readonly startWall = Date.now();
  private readonly startMono = performance.now();
  private readonly attrs: SpanRecord['attributes'] = {};
  private ended = false;

  constructor(
    private readonly sink: ((s: SpanRecord) => void) | null,
    private readonly service: string,
    readonly name: string,
    readonly kind: SpanRecord['kind'],
    parent: { traceId: string; spanId: string | null } | null,
  ) {
    this.traceId = parent?.traceId ?? newTraceId();
    this.parentSpanId = parent?.spanId ?? null;
    this.spanId = newSpanId();
  }

  /** The traceparent naming this span, for outbound calls. */
  traceparent(): string { return formatTraceparent(this.traceId, this.spanId); }

  /** Set attributes (last write wins). */
  set(attrs: SpanRecord['attributes']): this { Object.assign(this.attrs, attrs); return this; }

  /** A child span of this one. */
  child(name: string, kind: SpanRecord['kind'] = 'internal'): ActiveSpan {
    return new ActiveSpan(this.sink, this.service, name, kind, { traceId: this.traceId, spanId: this.spanId });
  }

  /** Finish the span (idempotent). */
  end(status: SpanRecord['status'] = 'ok', attrs: SpanRecord['attributes'] = {}): void {
    if (this.ended) return;
    this.ended = true;
    Object.assign(this.attrs, attrs);
    this.sink?.({
      trace_id: this.traceId, span_id: this.spanId, parent_span_id: this.parentSpanId, service: this.service, name: this.name, kind: this.kind,
      start_time: new Date(this.startWall).toISOString(), duration_ms: Math.round((performance.now() - this.startMono) * 1000) / 1000,
      status, attributes: this.attrs,
    });
  }
}

/** Options of `SpanExporter`. */
export interface SpanExporterOptions {
  /** Emitting service name. */
  service: string;
  /** Base URL of the observability service. */
  url: string;
  tenantId: string;
  principalKeys: readonly string[];
  /** Flush delay after the first queued span, ms (default 250). */
  flushMs?: number;
  /** Spans kept while observability is unreachable; older ones are dropped (default 10,000). */
  maxQueue?: number;
  /** An already cached service stamp to share (default `serviceStamp(service, tenantId, principalKeys)`). */
  stamp?: () => string;
}

/**
 * Batches finished spans and posts them to observability (`POST /v1/traces/spans`, service
 * principal). Best effort: tracing never fails or slows a request; spans are dropped when the
 * queue overflows.
 */
export class SpanExporter {
  private queue: SpanRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private inflight: Promise<void> | null = null;
  private readonly principal: () => string;
  private readonly flushMs: number;
  private readonly maxQueue: number;

  constructor(private readonly opts: SpanExporterOptions) {
    this.flushMs = opts.flushMs ?? 250;
    this.maxQueue = opts.maxQueue ?? 10_000;
    this.principal = opts.stamp ?? serviceStamp(opts.service, opts.tenantId, opts.principalKeys);
  }

  /** Start a span: a child of `parent` (an inbound traceparent), or the root of a new trace. */
  start(name: string, kind: SpanRecord['kind'], parent: TraceContext | null): ActiveSpan {
    return new ActiveSpan((s) => this.record(s), this.opts.service, name, kind, parent ? { traceId: parent.traceId, spanId: parent.spanId } : null);
  }

  /** Queue one finished span. */
  record(span: SpanRecord): void {
    if (this.queue.length >= this.maxQueue) this.queue.shift();
    this.queue.push(span);
    if (!this.timer) {
      this.timer = setTimeout(() => { this.timer = null; void this.flush(); }, this.flushMs);
      this.timer.unref();
    }
  }

  /** Post everything queued now; resolves when the post finished (errors are swallowed). */
  async flush(): Promise<void> {
    if (this.inflight) await this.inflight;
    if (this.queue.length === 0) return;
    const batch = this.queue.splice(0, 1000);
    this.inflight = (async () => {
      try {
        const r = await request(`${this.opts.url}/v1/traces/spans`, {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-principal': this.principal() },
          body: JSON.stringify({ spans: batch }), headersTimeout: 5000, bodyTimeout: 5000,
        });
        await r.body.dump();
      } catch {
        // Observability down: put the batch back (bounded) and retry on the next flush.
        this.queue = [...batch, ...this.queue].slice(-this.maxQueue);
      }
    })();
    await this.inflight;
    this.inflight = null;
    if (this.queue.length > 0 && !this.timer) {
      this.timer = setTimeout(() => { this.timer = null; void this.flush(); }, 2000);
      this.timer.unref();
    }
  }

  /** Flush what is queued and stop the timer. */
  async close(): Promise<void> {
    if (this.timer) { clearTimeout(this.timer); this.timer = null; }
    await this.flush().catch(() => undefined);
  }
}

/** Where the reporter and the budget check log (a pino logger fits). */
export interface ClientLog {
  warn(obj: object | string, msg?: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Posts generation records (`POST /v1/generations`, service principal, W3C traceparent of the call):
 * sent at once in the background, at most 4 at a time, retried every second while observability is
 * down; a bounded in-memory queue drops the oldest record when full. A 4xx is logged and dropped.
 */
export class GenerationReporter {
  private readonly pool: Dispatcher;
  private queue: Array<{ rec: GenerationInput; traceparent: string | null }> = [];
  private running = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  /**
   * @param url observability's base URL.
   * @param stamp the calling service's `X-Svc-Principal` (the one cached service stamp).
   */
  constructor(url: string, private readonly stamp: () => string, private readonly log: ClientLog, private readonly maxQueue = 10_000) {
    this.pool = withServiceTokens(new Pool(url, { connections: 4, keepAliveTimeout: 30_000 }), url); // issue 15 item 4: service token
  }

  /** Queue a record (sent at once when a connection is free). */
  report(rec: GenerationInput, traceparent: string | null): void {
    if (this.queue.length >= this.maxQueue) { this.queue.shift(); this.log.warn('generation record queue full; oldest dropped'); }
    this.queue.push({ rec, traceparent });
    this.pump();
  }

  private pump(): void {
    while (this.running < 4 && this.queue.length && !this.retryTimer) {
      const item = this.queue.shift()!;
      this.running++;
      void this.send(item).then((ok) => {
        this.running--;
        if (!ok && !this.closed) {
          this.queue.unshift(item);
          this.retryTimer ??= setTimeout(() => { this.retryTimer = null; this.pump(); }, 1000);
          this.retryTimer.unref();
        } else this.pump();
      });
    }
  }

  private async send(item: { rec: GenerationInput; traceparent: string | null }): Promise<boolean> {
    try {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-svc-principal': this.stamp() };
      if (item.traceparent) headers.traceparent = item.traceparent;
      const r = await this.pool.request({ method: 'POST', path: '/v1/generations', headers, body: JSON.stringify(item.rec), headersTimeout: 5000, bodyTimeout: 5000 });
      const text = await r.body.text();
      if (r.statusCode === 200 || r.statusCode === 201) return true;
      if (r.statusCode >= 400 && r.statusCode < 500) { this.log.error({ status: r.statusCode, body: text.slice(0, 300) }, 'observability refused a generation record'); return true; }
      return false;
    } catch {
      return false;
    }
  }

  /** Wait up to `ms` for queued records to be sent. */
  async drain(ms: number): Promise<void> {
    const end = Date.now() + ms;
    while ((this.queue.length || this.running) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  }

  /** Send what is queued (up to 2 s), then stop retrying and close the connections. */
  async close(): Promise<void> {
    await this.drain(2000);
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.pool.close().catch(() => undefined);
  }
}

/**
 * The tenant's budget status (`GET /v1/internal/budgets/{tenant}`), reused for `cacheMs`; concurrent
 * checks share one request. Observability unreachable or refusing means no limit (fail open, logged).
 */
export class BudgetGuard {
  private readonly pool: Dispatcher;
  private cache: { at: number; status: BudgetStatus | null } | null = null;
  private inflight: Promise<BudgetStatus | null> | null = null;

  /**
   * @param url observability's base URL.
   * @param cacheMs how long an answer is reused, ms (0: ask every time).
   */
  constructor(url: string, private readonly tenantId: string, private readonly stamp: () => string, private readonly cacheMs: number, private readonly log: ClientLog) {
    this.pool = withServiceTokens(new Pool(url, { connections: 2, keepAliveTimeout: 30_000 }), url); // issue 15 item 4: service token
  }

  /** The tenant's budget status, or null when observability could not say. */
  async status(): Promise<BudgetStatus | null> {
    if (this.cache && Date.now() - this.cache.at < this.cacheMs) return this.cache.status;
    this.inflight ??= this.fetch().finally(() => { this.inflight = null; });
    return this.inflight;
  }

  /** Forget the cached answer (after a call that spent money; only when answers are not reused). */
  invalidate(): void { if (this.cacheMs === 0) this.cache = null; }

  private async fetch(): Promise<BudgetStatus | null> {
    let status: BudgetStatus | null = null;
    try {
      const r = await this.pool.request({
        method: 'GET', path: `/v1/internal/budgets/${encodeURIComponent(this.tenantId)}`,
        headers: { 'x-svc-principal': this.stamp() }, headersTimeout: 2000, bodyTimeout: 2000,
      });
      const text = await r.body.text();
      if (r.statusCode === 200) status = JSON.parse(text) as BudgetStatus;
      else this.log.warn({ status: r.statusCode }, 'budget check failed; not enforcing');
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'observability unreachable for the budget check; not enforcing');
    }
    this.cache = { at: Date.now(), status };
    return status;
  }

  /** Close the connections. */
  async close(): Promise<void> { await this.pool.close().catch(() => undefined); }
}
