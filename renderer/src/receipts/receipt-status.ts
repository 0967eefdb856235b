/**
 * Receipt status of a turn, pending -> sealed -> verified (spec "States and transitions"), as plain
 * functions over what the query cache holds: the receipt detail (`GET /v1/receipts/{turn}`, which
 * answers 404 until the envelope is sealed) and the answer of the last `POST .../verify`. No React,
 * no fetch of its own: unit-tested in Node (test/unit/renderer).
 */

/** What the badge shows. */
export type Status = 'pending' | 'sealed' | 'verified' | 'failed' | 'unknown';

/** Cache key of a turn's receipt detail (also its URL). */
export function receiptKey(turnId: string): string {
  return `/v1/receipts/${encodeURIComponent(turnId)}`;
}

/** Cache key of the last verification of a turn's receipt in this window (primed, never fetched). */
export function verificationKey(turnId: string): string {
  return `${receiptKey(turnId)}/verify`;
}

/** The part of a verification answer the status needs. */
export interface Verification { ok: boolean }

/** The part of the detail query the status needs. */
export interface DetailState { data: { receipt: { status: string } } | undefined; error: unknown }

/**
 * The status from the cache: a verification made here wins (`verified` / `failed`); else a loaded
 * detail says `verified` or `sealed`; a 404 is still `pending`; another error is `unknown`; nothing
 * loaded yet keeps `initial` (what the message or list row said).
 * @param isNotFound tells a 404 answer from other errors.
 */
export function receiptStatus(initial: Status, detail: DetailState, verification: Verification | undefined, isNotFound: (err: unknown) => boolean): Status {
  if (verification) return verification.ok ? 'verified' : 'failed';
  if (detail.data) return detail.data.receipt.status === 'verified' ? 'verified' : 'sealed';
  if (detail.error) return isNotFound(detail.error) ? 'pending' : 'unknown';
  return initial;
}

/** Back-off of the pending poll: 0.3 s, growing by half up to 5 s, 40 tries (about two minutes). */
export const POLL = { firstMs: 300, maxMs: 5000, factor: 1.5, attempts: 40 } as const;

/**
 * Fetch a receipt detail, asking again with back-off while it answers 404 (pending: the turn seals
 * at its end, the watermark sealer later). @throws the last 404 when it is still pending after
 * `POLL.attempts` tries, or any other error at once.
 */
export async function pollReceipt<D>(
  get: () => Promise<D>,
  isNotFound: (err: unknown) => boolean,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  poll: { firstMs: number; maxMs: number; factor: number; attempts: number } = POLL,
): Promise<D> {
  let last: unknown;
  for (let i = 0, wait = poll.firstMs; i < poll.attempts; i++, wait = Math.min(poll.maxMs, wait * poll.factor)) {
    try {
      return await get();
    } catch (e) {
      if (!isNotFound(e)) throw e;
      last = e;
    }
    if (i < poll.attempts - 1) await sleep(wait);
  }
  throw last;
}
