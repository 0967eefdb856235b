/**
 * Document preparation off the event loop (issue 11 item 5 "Document bombs"): `DocumentPreparer`
 * over worker threads. Each document gets a fresh worker (parse-worker.ts) with
 * `resourceLimits.maxOldGenerationSizeMb` as its memory budget and a deadline after which it is
 * terminated; at most `concurrency` run at once, the others wait in arrival order. A parse that
 * spins or swells therefore costs one worker's budget and never stalls the service's requests
 * (search, status, other uploads), which keep the event loop.
 *
 * A fresh worker per document rather than a pool: nothing a hostile file leaves behind (pdfjs and
 * mammoth caches, a half-built heap) outlives it, and its start (tens of ms) is small next to a
 * parse. Files are read from the object store when their turn comes, so a queue holds no bytes
 * (the read may be asynchronous, an S3 bucket: the task holds its slot while its bytes arrive).
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { Awaitable } from '../../../shared/db/async-store.js';
import { DocumentLimitError, ParseError, PreparerClosedError } from '../domain/parse-errors.js';
import type { DocumentPreparer, PrepareJob } from '../domain/ports.js';
import type { PreparedDocument, PrepareOptions } from '../domain/prepare.js';
import type { ParseReply, ParseRequest } from './parse-worker.js';

/** Compiled next to this file (dist/services/knowledge/src/parsing/parse-worker.js). */
const WORKER_FILE = fileURLToPath(new URL('./parse-worker.js', import.meta.url));

/** Settings of the worker preparer. */
export interface WorkerPreparerOptions {
  /** Chunk sizes and document limits given to every parse. */
  prepare: PrepareOptions;
  /** Wall time of one parse, ms (KNOWLEDGE_PARSE_TIMEOUT_MS). */
  timeoutMs: number;
  /** Heap of one parse worker, MB (KNOWLEDGE_PARSE_MEMORY_MB). */
  memoryMb: number;
  /** Parses at once (KNOWLEDGE_PARSE_CONCURRENCY). */
  concurrency: number;
  logger: Logger;
}

interface Task { job: PrepareJob; resolve: (d: PreparedDocument) => void; reject: (e: Error) => void }

/** `DocumentPreparer` over one worker thread per document, bounded in time, memory and number. */
export class WorkerPreparer implements DocumentPreparer {
  private readonly queue: Task[] = [];
  private readonly running = new Map<Worker, Task>();
  /** Tasks holding a slot while their bytes are read (`job.load()` answered a promise). */
  private loading = 0;
  private closed = false;

  constructor(private readonly o: WorkerPreparerOptions) {}

  /** Parses running and waiting (for `/readyz` details and tests). */
  load(): { running: number; queued: number } { return { running: this.running.size + this.loading, queued: this.queue.length }; }

  /** Prepare `job` in a worker. @throws DocumentLimitError, ParseError, PreparerClosedError (see the port). */
  prepare(job: PrepareJob): Promise<PreparedDocument> {
    if (this.closed) return Promise.reject(new PreparerClosedError());
    return new Promise<PreparedDocument>((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.next();
    });
  }

  /** Stop: waiting and running parses reject with `PreparerClosedError`, workers are terminated. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) t.reject(new PreparerClosedError());
    const workers = [...this.running.entries()];
    this.running.clear();
    for (const [, t] of workers) t.reject(new PreparerClosedError());
    await Promise.all(workers.map(([w]) => w.terminate().catch(() => 0)));
  }

  private next(): void {
    while (!this.closed && this.running.size + this.loading < this.o.concurrency && this.queue.length > 0) this.start(this.queue.shift()!);
  }

  /** The worker's input; a file's bytes are copied once into a buffer of their own, which is transferred, not cloned. */
  private request(job: PrepareJob, loaded: Buffer | null): { req: ParseRequest; transfer: ArrayBuffer[] } | null {
    if (job.kind === 'text') return { req: { job, opts: this.o.prepare }, transfer: [] };
    if (!loaded) return null;
    const bytes = new Uint8Array(loaded);
    return { req: { job: { kind: 'file', format: job.format, bytes }, opts: this.o.prepare }, transfer: [bytes.buffer] };
  }

  /** Read the task's bytes (at once from the local folder; a slot is held while a bucket answers), then run it. */
  private start(task: Task): void {
    let loaded: Awaitable<Buffer | null> = null;
    try { if (task.job.kind === 'file') loaded = task.job.load(); } catch (err) { task.reject(err as Error); return; }
    if (!(loaded instanceof Promise)) { this.run(task, loaded); return; }
    this.loading++;
    loaded.then(
      (bytes) => { this.loading--; if (this.closed) task.reject(new PreparerClosedError()); else this.run(task, bytes); },
      (err: Error) => { this.loading--; task.reject(err); this.next(); },
    );
  }

  private run(task: Task, loaded: Buffer | null): void {
    const input = this.request(task.job, loaded);
    if (!input) { task.reject(new ParseError('the original upload is no longer stored')); this.next(); return; }
    const w = new Worker(WORKER_FILE, { workerData: input.req, transferList: input.transfer, resourceLimits: { maxOldGenerationSizeMb: this.o.memoryMb } });
    w.unref();
    this.running.set(w, task);
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (this.running.get(w) === task) { this.running.delete(w); fn(); }
      void w.terminate().catch(() => 0);
      this.next();
    };
    // Declared after `settle`, which only runs from the events below, once it is set.
    const timer = setTimeout(() => settle(() => task.reject(new DocumentLimitError(
      `refused: parsing took longer than ${Math.round(this.o.timeoutMs / 100) / 10} s (KNOWLEDGE_PARSE_TIMEOUT_MS)`, 'KNOWLEDGE_PARSE_TIMEOUT_MS',
    ))), this.o.timeoutMs);
    w.once('message', (m: ParseReply) => settle(() => {
      if (m.ok) { task.resolve(m.doc); return; }
      if (m.kind === 'limit') { task.reject(new DocumentLimitError(m.message, m.limit!)); return; }
      if (m.kind === 'internal') this.o.logger.warn({ err: m.message }, 'parser failed');
      task.reject(new ParseError(m.kind === 'parse' ? m.message : 'the file could not be parsed'));
    }));
    w.once('error', (err: Error & { code?: string }) => settle(() => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        task.reject(new DocumentLimitError(`refused: parsing needed more than ${this.o.memoryMb} MB of memory (KNOWLEDGE_PARSE_MEMORY_MB)`, 'KNOWLEDGE_PARSE_MEMORY_MB'));
        return;
      }
      this.o.logger.warn({ err: err.message }, 'parse worker failed');
      task.reject(new ParseError('the file could not be parsed'));
    }));
    w.once('exit', () => settle(() => task.reject(new ParseError('the parser stopped before it finished'))));
  }
}
