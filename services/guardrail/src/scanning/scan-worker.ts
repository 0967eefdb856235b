/**
 * Scan worker thread (issue 11 item 6): runs the pure scanners for `ScanPool` off the service's
 * event loop, one request at a time. Request `{id, kind: 'check', content, opts}` answers
 * `runCheck`'s `{result, verdict}`; `{id, kind: 'entities', content, opts}` answers
 * `findEntities`' spans. A scanner exception answers `{id, ok: false, error}`; the pool turns it
 * into a failed-closed check. The pool terminates a worker that runs past the scan budget. Once
 * its modules are loaded the worker says `{ready: true}`: its start does not count against a budget.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadNgramModel } from '../classifier/ngram-file.js';
import { installNgramModel } from '../classifier/ngram-layer.js';
import { runCheck, type CheckOptions } from '../domain/check.js';
import { findEntities, type FindEntitiesOptions } from '../domain/pii.js';
import { warmUpScanners } from '../domain/scanner.js';

/** What the pool hands a worker at start (`ScanPoolOptions.workerData`). */
export interface ScanWorkerData {
  /** Weights of the trained n-gram classifier (issue 16 item 2), loaded once here; null: that layer is off. */
  ngramModelPath?: string | null;
}

/** One scan asked of a worker. */
export type ScanRequest =
  | { id: number; kind: 'check'; content: string; opts: CheckOptions }
  | { id: number; kind: 'entities'; content: string; opts: FindEntitiesOptions };

/** A worker's answer to `ScanRequest` `id`. */
export type ScanReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/** What a worker posts: answers, and once `ready` after its modules loaded. */
export type WorkerMessage = ScanReply | { ready: true };

/** Run one request (exported for tests; the thread below calls it per message). */
export function handleScan(m: ScanRequest): ScanReply {
  try {
    const value = m.kind === 'check' ? runCheck(m.content, m.opts) : findEntities(m.content, m.opts);
    return { id: m.id, ok: true, value };
  } catch (err) {
    return { id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

// The n-gram weights load before `ready`: a scan never pays for them. A file that does not load
// leaves the layer off here; the service reports why (its own load at start, /readyz).
const init = (workerData ?? {}) as ScanWorkerData;
if (init.ngramModelPath) {
  try { installNgramModel(loadNgramModel(init.ngramModelPath).model); } catch { installNgramModel(null); }
}

// Compile the scanners' patterns before `ready` too (issue 16 item 4: a first scan must not pay for it).
if (parentPort) warmUpScanners();

parentPort?.on('message', (m: ScanRequest) => { parentPort!.postMessage(handleScan(m)); });
parentPort?.postMessage({ ready: true } satisfies WorkerMessage);
