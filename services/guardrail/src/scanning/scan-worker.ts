/**
 * Scan worker thread (issue 11 item 6): runs the pure scanners for `ScanPool` off the service's
 * event loop, one request at a time. Request `{id, kind: 'check', content, opts}` answers
 * `runCheck`'s `{result, verdict}`; `{id, kind: 'entities', content, opts}` answers
 * `findEntities`' spans. A scanner exception answers `{id, ok: false, error}`; the pool turns it
 * into a failed-closed check. The pool terminates a worker that runs past the scan budget. Once
 * its modules are loaded the worker says `{ready: true}`: its start does not count against a budget.
 */
import { parentPort } from 'node:worker_threads';
import { runCheck, type CheckOptions } from '../domain/check.js';
import { findEntities, type FindEntitiesOptions } from '../domain/pii.js';

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

parentPort?.on('message', (m: ScanRequest) => { parentPort!.postMessage(handleScan(m)); });
parentPort?.postMessage({ ready: true } satisfies WorkerMessage);
