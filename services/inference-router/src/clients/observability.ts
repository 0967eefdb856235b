/**
 * The router's calls to observability: one generation record per call (`POST /v1/generations`,
 * service principal, sent at once in the background and retried while observability is down), and
 * the tenant budget check (`GET /v1/internal/budgets/{tenant}`, cached briefly; fails open).
 */
import { Pool } from 'undici';
import type { Logger } from 'pino';
import type { BudgetStatus, GenerationInput } from '../../../observability/src/contracts.js';

/** Posts generation records; bounded in-memory queue, retried with backoff. */
export class GenerationReporter {
  private readonly pool: Pool;
  private queue: Array<{ rec: GenerationInput; traceparent: string | null }> = [];
  private running = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(url: string, private readonly stamp: () => string, private readonly log: Logger, private readonly maxQueue = 10_000) {
    this.pool = new Pool(url, { connections: 4, keepAliveTimeout: 30_000 });
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

  async close(): Promise<void> {
    await this.drain(2000);
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.pool.close().catch(() => undefined);
  }
}

/** Budget check with a short cache; observability unreachable means no limit (fail open, logged). */
export class BudgetGuard {
  private readonly pool: Pool;
  private cache: { at: number; status: BudgetStatus | null } | null = null;
  private inflight: Promise<BudgetStatus | null> | null = null;

  constructor(url: string, private readonly tenantId: string, private readonly stamp: () => string, private readonly cacheMs: number, private readonly log: Logger) {
    this.pool = new Pool(url, { connections: 2, keepAliveTimeout: 30_000 });
  }

  /** The tenant's budget status, or null when observability could not say. */
  async status(): Promise<BudgetStatus | null> {
    if (this.cache && Date.now() - this.cache.at < this.cacheMs) return this.cache.status;
    this.inflight ??= this.fetch().finally(() => { this.inflight = null; });
    return this.inflight;
  }

  /** Forget the cached answer (after a call that spent money). */
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

  async close(): Promise<void> { await this.pool.close().catch(() => undefined); }
}
