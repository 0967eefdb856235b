/**
 * Trace use cases (spec "Observability": traces; W3C Trace Context): spans posted by services,
 * observability's own spans (batched straight into the store, never over HTTP to itself), trace
 * pages and one trace, and pruning past the retention.
 */
import { notFoundError } from '../../../shared/kit/domain-error.js';
import type { SpanInput, SpanRecord, TraceSummary } from '../contracts.js';
import { requireService } from './generations.js';
import { pageOf, type Page } from './pagination.js';
import type { Caller, SpanStore } from './ports.js';

/** Traces. */
export class TraceService {
  constructor(private readonly spans: SpanStore) {}

  /**
   * Store posted spans (duplicates ignored): parent and attributes default to null and `{}`, start
   * times are normalised. @returns how many were new.
   * @throws DomainError `service_account_required` unless a service posts.
   */
  async ingest(caller: Caller, spans: SpanInput[]): Promise<number> {
    requireService(caller, 'only services post spans');
    return await this.spans.insert(spans.map((s) => ({ ...s, parent_span_id: s.parent_span_id ?? null, start_time: new Date(s.start_time).toISOString(), attributes: s.attributes ?? {} })));
  }

  /** A page of trace summaries, most recent first (`limit` default 50; `cursor` the previous page's `next_cursor`). */
  async page(limit = 50, cursor?: string): Promise<Page<TraceSummary>> {
    return pageOf(await this.spans.traces(limit + 1, cursor), limit, (t) => t.start_time);
  }

  /** One trace's spans in start order. @throws DomainError `not_found` */
  async trace(traceId: string): Promise<{ trace_id: string; spans: SpanRecord[] }> {
    const spans = await this.spans.trace(traceId);
    if (spans.length === 0) throw notFoundError(`no trace ${traceId}`);
    return { trace_id: traceId, spans };
  }

  /** Delete spans older than `retentionDays` before `now`. */
  async prune(retentionDays: number, now = Date.now()): Promise<void> {
    await this.spans.prune(new Date(now - retentionDays * 86_400_000).toISOString());
  }
}

/**
 * Observability's own spans: queued and inserted in one batch per event-loop turn; `flush()` writes
 * what is queued (at close). Insert failures are reported, never thrown.
 */
export class SpanBatcher {
  private pending: SpanRecord[] = [];

  constructor(private readonly spans: SpanStore, private readonly onError: (err: unknown) => void) {}

  /** Queue one finished span. */
  readonly add = (s: SpanRecord): void => {
    if (this.pending.length === 0) {
      setImmediate(() => {
        const b = this.pending; this.pending = [];
        void this.write(b, this.onError);
      });
    }
    this.pending.push(s);
  };

  /** Insert what is queued now (errors ignored: closing). */
  async flush(): Promise<void> {
    if (!this.pending.length) return;
    const b = this.pending; this.pending = [];
    await this.write(b, () => undefined);
  }

  /** Insert one batch; a failure goes to `onFail` (on SQLite the insert runs before the first await, as before). */
  private async write(b: SpanRecord[], onFail: (err: unknown) => void): Promise<void> {
    try { await this.spans.insert(b); } catch (err) { onFail(err); }
  }
}
