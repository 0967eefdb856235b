/**
 * Client side of observability for other services (DESIGN.md: a service may import another's
 * contracts and clients): W3C Trace Context helpers and a batching span exporter that posts to
 * `POST /v1/traces/spans` with a service principal.
 *
 * Trace Context (W3C, level 1): `traceparent: 00-<32 hex trace id>-<16 hex parent span id>-<2 hex flags>`;
 * all-zero ids and version `ff` are invalid. A service accepts an inbound traceparent, records its
 * own span as a child, and sends a new traceparent naming that span on every outbound call.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { servicePrincipal, signStamp } from '../../shared/identity/principal.js';

/** A parsed traceparent. */
export interface TraceContext {
  /** 32 lowercase hex. */
  traceId: string;
  /** 16 lowercase hex: the caller's span. */
  spanId: string;
  sampled: boolean;
}

/** One finished span, as stored by observability (an OpenTelemetry span, flattened). */
export interface SpanRecord {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  service: string;
  name: string;
  kind: 'server' | 'client' | 'internal';
  /** RFC 3339 start time. */
  start_time: string;
  duration_ms: number;
  status: 'ok' | 'error';
  attributes: Record<string, string | number | boolean | null>;
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
  private stamp: { value: string; exp: number } | null = null;
  private readonly flushMs: number;
  private readonly maxQueue: number;

  constructor(private readonly opts: SpanExporterOptions) {
    this.flushMs = opts.flushMs ?? 250;
    this.maxQueue = opts.maxQueue ?? 10_000;
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

  private principal(): string {
    const now = Math.floor(Date.now() / 1000);
    if (!this.stamp || this.stamp.exp - now < 60) {
      const p = servicePrincipal(this.opts.service, this.opts.tenantId, now);
      this.stamp = { value: signStamp(p, this.opts.principalKeys), exp: p.exp };
    }
    return this.stamp.value;
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
