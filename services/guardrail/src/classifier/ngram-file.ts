/**
 * Loading the trained n-gram classifier's weights (issue 16 item 2) from its file
 * (`assets/guardrail/ngram-guard.json`, or SVC_GUARDRAIL_NGRAM_MODEL). Each scan worker loads it
 * once at start (scanning/scan-worker.ts) and installs it with `installNgramModel` (ngram-layer.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { NgramStatus } from '../contracts.js';
import { decodeNgramModel, type NgramModel, type NgramModelFile } from './ngram.js';

/** A loaded model and the identity of its file. */
export interface LoadedNgramModel { model: NgramModel; sha256: string; bytes: number }

/** Read, verify and decode a weights file. @throws Error naming what is wrong (missing file, bad JSON, bad format). */
export function loadNgramModel(path: string): LoadedNgramModel {
  const raw = readFileSync(path);
  let parsed: NgramModelFile;
  try { parsed = JSON.parse(raw.toString('utf8')) as NgramModelFile; } catch { throw new Error('the n-gram weights file is not JSON'); }
  return { model: decodeNgramModel(parsed), sha256: createHash('sha256').update(raw).digest('hex'), bytes: raw.length };
}

/**
 * Load the weights at `path` for the service's status (the scan workers load their own copy).
 * @returns the status (`ready` with model, version and the file's sha256; `off` when `path` is
 *   null; `failed` with the reason) and the loaded model, if any. Never throws.
 */
export function ngramStatusOf(path: string | null): { status: NgramStatus; loaded: LoadedNgramModel | null } {
  if (!path) return { status: { state: 'off', model: null, version: null, sha256: null, reason: 'turned off (SVC_GUARDRAIL_NGRAM_MODEL=off)' }, loaded: null };
  try {
    const loaded = loadNgramModel(path);
    return { status: { state: 'ready', model: loaded.model.name, version: loaded.model.version, sha256: loaded.sha256, reason: null }, loaded };
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    return {
      status: { state: missing ? 'unavailable' : 'failed', model: null, version: null, sha256: null, reason: missing ? 'the n-gram weights file is missing; the other layers carry on' : `the n-gram weights could not be loaded (${err instanceof Error ? err.message : String(err)}); the other layers carry on` },
      loaded: null,
    };
  }
}
