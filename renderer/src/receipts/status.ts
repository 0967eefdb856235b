/**
 * Receipt status of a turn through the query cache (spec "States and transitions"): the badge,
 * the receipt view and the receipts page read one cache entry per turn, `GET /v1/receipts/{turn}`,
 * loaded with a poll that waits out the 404 of a pending receipt; a Verify made here is primed into
 * the cache next to it. The rules are `receipt-status.ts`.
 */
import { prime, useCached, useQuery, type QueryState } from '../api/cache';
import { api, ApiError } from '../api/http';
import type { ReceiptDetail } from '../api/types';
import { pollReceipt, receiptKey, receiptStatus, verificationKey, type Status, type Verification } from './receipt-status';

export type { Status } from './receipt-status';

const isNotFound = (e: unknown): boolean => e instanceof ApiError && e.status === 404;

/**
 * A turn's receipt: its status and the detail query. The detail is fetched (and polled while
 * pending) only when `initial` is `pending`; otherwise the entry is watched and `initial` stands
 * until someone loads it.
 */
export function useReceipt(turnId: string, initial: Status): { status: Status; detail: QueryState<ReceiptDetail> & { refetch: () => Promise<void> } } {
  const key = receiptKey(turnId);
  const detail = useQuery<ReceiptDetail>(key, () => pollReceipt(() => api<ReceiptDetail>(key), isNotFound), { enabled: initial === 'pending' });
  const verification = useCached<Verification>(verificationKey(turnId));
  return { status: receiptStatus(initial, detail, verification, isNotFound), detail };
}

/** Live status of `turnId`'s receipt; polls while pending. */
export function useReceiptStatus(turnId: string, initial: Status): Status {
  return useReceipt(turnId, initial).status;
}

/** Record the answer of `POST /v1/receipts/{turn}/verify` (every badge of the turn shows it). */
export function receiptVerified(turnId: string, v: Verification): void {
  prime<Verification>(verificationKey(turnId), { ok: v.ok });
}
