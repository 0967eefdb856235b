/**
 * The guardrail's scanners off the event loop (issue 11 item 6 "The guard must not be slowed into
 * failing open"): a small pool of persistent worker threads (scan-worker.ts) behind the domain's
 * `Scanner` port. Each scan has a time budget counted from its arrival: one still waiting for a
 * worker when it runs out is refused as `busy`, one still running has its worker terminated and
 * fails as `timeout`; either way only that scan fails (the check answers `block`), the other
 * workers go on, and a fresh worker takes the place of a terminated one. The service's own
 * thread keeps serving requests, `/healthz` and `/readyz` meanwhile.
 *
 * Persistent workers rather than one per scan: checks are frequent and small, and a worker's
 * start (module load, and the name lexicon on its first NLP scan) would dominate them. A scan
 * keeps no state between requests, so a reused worker carries nothing from one input to the next.
 * A worker's own start (hundreds of ms on a busy machine) is not the input's doing: a scan handed
 * to a starting worker has its budget restarted when the worker is ready.
 */
import { Worker } from 'node:worker_threads';
import type { CheckOptions } from '../domain/check.js';
import type { EntitySpan } from '../domain/entities.js';
import type { FindEntitiesOptions } from '../domain/pii.js';
import type { CheckOutcome, Scanner, Warn } from '../domain/ports.js';
import { ScanIncomplete, type ScanIncompleteCause } from '../domain/scanner.js';
import type { ScanRequest, ScanWorkerData, WorkerMessage } from './scan-worker.js';

/** Compiled next to this file (dist/services/guardrail/src/scanning/scan-worker.js). */
const WORKER_URL = new URL('./scan-worker.js', import.meta.url);

/** Settings of the pool. */
export interface ScanPoolOptions {
  /** Worker threads (SVC_GUARDRAIL_CHECK_WORKERS). */
  workers: number;
  /** Budget of one scan from its arrival, ms (SVC_GUARDRAIL_CHECK_BUDGET_MS). */
  budgetMs: number;
  /** Scans allowed to wait for a worker; more are refused as `busy` at once. Default 256. */
  maxQueue?: number;
  /** Old-generation heap of one worker, MB; a worker past it fails its scan. Default 256. */
  memoryMb?: number;
  /** Worker module (tests); default scan-worker.js. */
  workerUrl?: URL;
  /** Handed to each worker at start (`ScanWorkerData`: the n-gram weights file, issue 16 item 2). */
  workerData?: ScanWorkerData;
  log: Warn;
}

interface Task { req: ScanRequest; resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout; slot: Slot | null }
interface Slot { worker: Worker; task: Task | null; ready: boolean }

/** `Scanner` over worker threads, each scan bounded by the budget. */
export class ScanPool implements Scanner {
  private readonly slots = new Set<Slot>();
  private readonly queue: Task[] = [];
  private seq = 0;
  private closed = false;

  constructor(private readonly o: ScanPoolOptions) {}

  /** `runCheck` in a worker. @throws ScanIncomplete (`timeout`, `busy`, `crashed`, `closed`). */
  check(content: string, opts: CheckOptions): Promise<CheckOutcome> {
    return this.run({ kind: 'check', content, opts }) as Promise<CheckOutcome>;
  }

  /** `findEntities` in a worker. @throws ScanIncomplete as `check`. */
  entities(content: string, opts: FindEntitiesOptions): Promise<EntitySpan[]> {
    return this.run({ kind: 'entities', content, opts }) as Promise<EntitySpan[]>;
  }

  /** Start all workers now rather than with the first scans (benchmarks, tests). */
  start(): void {
    while (!this.closed && this.slots.size < this.o.workers) this.spawn();
  }

  /** Workers alive, scans running and waiting (for `/readyz` details and tests). */
  load(): { workers: number; running: number; queued: number } {
    let running = 0;
    for (const s of this.slots) if (s.task) running++;
    return { workers: this.slots.size, running, queued: this.queue.length };
  }

  /** Stop: waiting and running scans fail as `closed`, workers are terminated. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) { clearTimeout(t.timer); t.reject(new ScanIncomplete('closed', this.o.budgetMs)); }
    const slots = [...this.slots];
    for (const s of slots) this.retire(s, 'closed');
    await Promise.all(slots.map((s) => s.worker.terminate().catch(() => 0)));
  }

  private run(req: Omit<ScanRequest, 'id'>): Promise<unknown> {
    if (this.closed) return Promise.reject(new ScanIncomplete('closed', this.o.budgetMs));
    if (this.queue.length >= (this.o.maxQueue ?? 256)) return Promise.reject(new ScanIncomplete('busy', this.o.budgetMs));
    return new Promise((resolve, reject) => {
      const task: Task = { req: { ...req, id: ++this.seq } as ScanRequest, resolve, reject, slot: null, timer: setTimeout(() => this.expire(task), this.o.budgetMs) };
      this.queue.push(task);
      this.dispatch();
    });
  }

  /** Hand waiting scans to idle workers, starting workers (up to the pool size) while scans wait. */
  private dispatch(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (!this.queue.length) return;
      if (!slot.task) this.assign(slot, this.queue.shift()!);
    }
    while (this.queue.length && this.slots.size < this.o.workers) this.assign(this.spawn(), this.queue.shift()!);
  }

  private assign(slot: Slot, task: Task): void {
    slot.task = task;
    task.slot = slot;
    if (!slot.ready) clearTimeout(task.timer); // restarted in full once the worker is ready
    slot.worker.postMessage(task.req);
  }

  /** The budget ran out: a waiting scan is refused, a running one loses its worker. */
  private expire(task: Task): void {
    if (task.slot) { this.retire(task.slot, 'timeout'); return; }
    const i = this.queue.indexOf(task);
    if (i >= 0) this.queue.splice(i, 1);
    task.reject(new ScanIncomplete('busy', this.o.budgetMs));
  }

  private spawn(): Slot {
    const worker = new Worker(this.o.workerUrl ?? WORKER_URL, { workerData: this.o.workerData ?? {}, resourceLimits: { maxOldGenerationSizeMb: this.o.memoryMb ?? 256 } });
    worker.unref();
    const slot: Slot = { worker, task: null, ready: false };
    worker.on('message', (m: WorkerMessage) => {
      const t = slot.task;
      if ('ready' in m) {
        slot.ready = true;
        if (t) t.timer = setTimeout(() => this.expire(t), this.o.budgetMs);
        return;
      }
      if (!t || t.req.id !== m.id) return;
      slot.task = null;
      t.slot = null;
      clearTimeout(t.timer);
      if (m.ok) t.resolve(m.value);
      else {
        this.o.log.warn({ error: m.error }, 'guard scan failed in its worker');
        t.reject(new ScanIncomplete('crashed', this.o.budgetMs));
      }
      this.dispatch();
    });
    worker.on('error', (err) => {
      this.o.log.warn({ error: err.message }, 'guard scan worker failed');
      this.retire(slot, 'crashed');
    });
    worker.on('exit', () => this.retire(slot, 'crashed'));
    this.slots.add(slot);
    return slot;
  }

  /**
   * Drop a worker (terminating it) and fail its scan with `cause`. A worker stopped for its budget
   * is replaced at once, so the next scan does not pay a worker start; after a crash a worker starts
   * only when scans wait (no restart loop).
   */
  private retire(slot: Slot, cause: ScanIncompleteCause): void {
    if (!this.slots.delete(slot)) return;
    const t = slot.task;
    slot.task = null;
    if (t) {
      t.slot = null;
      clearTimeout(t.timer);
      t.reject(new ScanIncomplete(cause, this.o.budgetMs));
    }
    void slot.worker.terminate().catch(() => 0);
    if (cause === 'timeout' && !this.closed && this.slots.size < this.o.workers) this.spawn();
    this.dispatch();
  }
}
