/**
 * THE typed HTTP client other services use to call the agent runtime (DESIGN.md: a service imports
 * another only through its `contracts.ts`, `client.ts` or `index.ts`).
 *
 * `NotificationsClient` (issue 13 item 1; spec "Agent runtime surfaces": `POST /v1/internal/notifications`):
 * the platform's producers (knowledge, sandbox, observability, auth) post notifications for a user
 * with the calling service's principal from the one cached service stamp, straight to the runtime's
 * port. `notify()` never throws and never waits: the post runs in the background (at most
 * `concurrency` at once, at most `maxQueued` waiting; beyond that a notification is dropped), one
 * retry after a network error or a 5xx (safe: producers send an idempotency key), and a failure is
 * logged once per run of failures. A notification failure never fails the producer's work.
 */
import { request } from 'undici';
import { serviceStamp } from '../../shared/identity/service-stamp.js';
import type { NotificationCreate, NotificationView } from './contracts.js';

export type { NotificationCreate, NotificationKind, NotificationView } from './contracts.js';

/** Where failures are reported (a pino logger fits). */
export interface NotificationsClientLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** Options of `NotificationsClient`. */
export interface NotificationsClientOptions {
  /** The runtime's base URL, e.g. `http://127.0.0.1:8001` (`cfg.serviceUrls['agent-runtime']`). */
  baseUrl: string;
  /** The calling service's name (its principal is `service:<name>`; it must be in NOTIFICATIONS_PRODUCERS). */
  service: string;
  /** Tenant of the service stamp. */
  tenantId: string;
  /** HMAC keys of X-Svc-Principal, newest first. */
  principalKeys: readonly string[];
  log?: NotificationsClientLog;
  /** Deadline of one post, ms (default 5000). */
  timeoutMs?: number;
  /** Posts in flight at once (default 4). */
  concurrency?: number;
  /** Posts waiting beyond those in flight before new ones are dropped (default 1000). */
  maxQueued?: number;
  /** Wait before the one retry, ms (default 500). */
  retryDelayMs?: number;
}

/** The answer of one post: 201 (new) or 200 (the original of a repeated key). */
export interface NotificationPosted { status: number; notification: NotificationView }

/** A refused or failed post. */
export class NotificationPostError extends Error {
  constructor(message: string, readonly status: number, readonly code: string) {
    super(message);
    this.name = 'NotificationPostError';
  }
}

/** Posts notifications to the agent runtime on behalf of a producer service. */
export class NotificationsClient {
  private readonly stamp: () => string;
  private readonly queue: NotificationCreate[] = [];
  private running = 0;
  private failing = 0;
  private readonly idleWaiters: Array<() => void> = [];

  constructor(private readonly o: NotificationsClientOptions) {
    this.stamp = serviceStamp(o.service, o.tenantId, o.principalKeys);
  }

  /** Post `n` in the background. Never throws; failures are logged once per run of failures. */
  notify(n: NotificationCreate): void {
    if (this.queue.length >= (this.o.maxQueued ?? 1000)) {
      this.failed(new Error('notification queue full'), n, 'dropped');
      return;
    }
    this.queue.push(n);
    this.pump();
  }

  /**
   * Post `n` and wait for the answer (one retry after a network error or a 5xx).
   * @throws NotificationPostError with the runtime's `code` (e.g. `producer_not_allowed`), or
   *   `runtime_unreachable` when no answer came.
   */
  async send(n: NotificationCreate): Promise<NotificationPosted> {
    try {
      return await this.post(n);
    } catch (err) {
      if (err instanceof NotificationPostError && err.status > 0 && err.status < 500) throw err;
      await new Promise((r) => setTimeout(r, this.o.retryDelayMs ?? 500));
      return this.post(n);
    }
  }

  /** Resolves once nothing is queued or in flight (tests, shutdown). */
  idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private pump(): void {
    while (this.running < (this.o.concurrency ?? 4) && this.queue.length) {
      const n = this.queue.shift()!;
      this.running++;
      void this.send(n)
        .then(() => {
          if (this.failing) { this.o.log?.info({ failed: this.failing }, 'notifications reach the agent runtime again'); this.failing = 0; }
        }, (err: unknown) => this.failed(err, n, 'failed'))
        .finally(() => {
          this.running--;
          this.pump();
          if (this.running === 0 && this.queue.length === 0) for (const w of this.idleWaiters.splice(0)) w();
        });
    }
  }

  private failed(err: unknown, n: NotificationCreate, what: string): void {
    if (this.failing++ === 0) {
      this.o.log?.warn({ err: err instanceof Error ? err.message : String(err), kind: n.kind, service: this.o.service }, `notification ${what}`);
    }
  }

  private async post(n: NotificationCreate): Promise<NotificationPosted> {
    let res;
    try {
      res = await request(`${this.o.baseUrl}/v1/internal/notifications`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-principal': this.stamp() },
        body: JSON.stringify(n),
        signal: AbortSignal.timeout(this.o.timeoutMs ?? 5000),
      });
    } catch (err) {
      throw new NotificationPostError(`agent runtime unreachable: ${err instanceof Error ? err.message : String(err)}`, 0, 'runtime_unreachable');
    }
    const text = await res.body.text();
    let body: unknown = null;
    try { body = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    if (res.statusCode === 200 || res.statusCode === 201) return { status: res.statusCode, notification: body as NotificationView };
    const e = (body ?? {}) as { error?: unknown; code?: unknown };
    throw new NotificationPostError(typeof e.error === 'string' ? e.error : `HTTP ${res.statusCode}`, res.statusCode, typeof e.code === 'string' ? e.code : `http_${res.statusCode}`);
  }
}
