/**
 * Runs paused on an AG-UI interrupt (issue 17 item 5). When a RunAgentInput run reaches a tool
 * approval, the AG-UI run ends with `RUN_FINISHED {outcome: interrupt}` while the runtime's turn
 * stays parked on the approval (spec "Chat stream events": `approval_required`): the gateway keeps
 * the upstream stream here, unread, under each approval id. A RunAgentInput with `resume` entries
 * answering those ids decides the approvals (the runtime's `/v1/user/approvals/{id}/approve|reject`,
 * as the caller) and streams the rest of the same turn as a new AG-UI run. A paused run nobody
 * resumes is dropped (its upstream closed, so the runtime cancels the approvals) when the last of its
 * interrupts expires, or after 15 minutes when they name no expiry. In memory of one gateway
 * process: a gateway restart loses paused runs (the resume answers 404 `interrupt_not_found`).
 * The paused turn's terminal event (`turn_sealed`) is deferred with it (`GatewayState.deferTerminal`)
 * and emitted when the continuation ends, so the sealed receipt holds the tool call and the answer
 * given after the resume; a run dropped unresumed ends its turn as `turn_failed`.
 */
import type { TurnSeal } from '../plugins/admission-steps.js';
import type { Readable } from 'node:stream';
import type { SseParser, SseRecord } from './sse.js';

/** The upstream of a run as the handler reads it. */
export interface RunSource {
  /** The runtime's SSE body (utf8). */
  body: Readable;
  /** Its iterator (kept across a pause: a `for await` break would destroy the body). */
  it: AsyncIterator<string>;
  parser: SseParser;
  /** Records parsed but not yet translated. */
  pending: SseRecord[];
}

/** A paused run. */
export interface PausedRun {
  src: RunSource;
  /** The turn id (AG-UI runId of the run and of its continuation). */
  turnId: string;
  /** The session id (AG-UI threadId). */
  threadId: string | null;
  /** The approval ids it waits on. */
  ids: readonly string[];
  /** Who ran it (`<tenant>/<user id>`, null when unknown): only they may resume it. */
  owner: string | null;
  /** Emits the paused turn's terminal event (null when the request had none due). */
  seal: TurnSeal | null;
  timer: NodeJS.Timeout;
}

/** Longest a paused run without an expiry waits, ms. */
export const PAUSE_DEFAULT_MS = 15 * 60 * 1000;

const paused = new Map<string, PausedRun>();

/**
 * Keep `src` under each of `ids` until resumed or `ttlMs` passed (then its body is destroyed and
 * `seal` ends the turn as incomplete).
 */
export function pauseRun(
  src: RunSource, turnId: string, threadId: string | null, ids: readonly string[], owner: string | null, seal: TurnSeal | null, ttlMs = PAUSE_DEFAULT_MS,
): void {
  const run: PausedRun = {
    src, turnId, threadId, ids, owner, seal,
    timer: setTimeout(() => {
      if (dropRun(run)) seal?.(200, true);
      if (!src.body.destroyed) src.body.destroy();
    }, Math.max(1000, ttlMs)),
  };
  run.timer.unref();
  for (const id of ids) paused.set(id, run);
}

/** The paused run of `owner` waiting on any of `ids`, if one is (another caller's is not found). */
export function findPaused(ids: readonly string[], owner: string | null): PausedRun | null {
  for (const id of ids) { const r = paused.get(id); if (r && r.owner === owner) return r; }
  return null;
}

/**
 * Take `run` out of the registry (to resume it).
 * @returns false when it was already taken (resumed concurrently or expired).
 */
export function dropRun(run: PausedRun): boolean {
  if (!run.ids.some((id) => paused.get(id) === run)) return false;
  for (const id of run.ids) if (paused.get(id) === run) paused.delete(id);
  clearTimeout(run.timer);
  return true;
}

/** How long a run paused on interrupts expiring at `expiresAt` (ISO times) waits, ms. */
export function pauseTtl(expiresAt: readonly (string | undefined)[], now = Date.now()): number {
  const times = expiresAt.map((t) => (t ? Date.parse(t) : NaN)).filter((t) => Number.isFinite(t));
  return times.length ? Math.max(...times) - now + 5000 : PAUSE_DEFAULT_MS;
}
