/**
 * Receipt status of a turn, pending -> sealed -> verified (spec "States and transitions"). The
 * detail route answers 404 until the envelope is sealed, so pending is polled with back-off; a
 * successful `POST .../verify` (or a receipt the server already verified) makes it verified.
 */
import { useEffect, useSyncExternalStore } from 'react';
import { api, ApiError } from '../api/http';
import type { ReceiptDetail } from '../api/types';

export type Status = 'pending' | 'sealed' | 'verified' | 'failed' | 'unknown';

const status = new Map<string, Status>();
const listeners = new Map<string, Set<() => void>>();
const polling = new Set<string>();

/** Record a status (also called by the receipt view after Verify). */
export function setReceiptStatus(turnId: string, s: Status): void {
  if (status.get(turnId) === s) return;
  status.set(turnId, s);
  for (const fn of listeners.get(turnId) ?? []) fn();
}

async function poll(turnId: string): Promise<void> {
  if (polling.has(turnId)) return;
  polling.add(turnId);
  try {
    // 0.3 s, then growing to 5 s; give up after about two minutes (the watermark sealer is later).
    for (let i = 0, wait = 300; i < 40; i++, wait = Math.min(5000, wait * 1.5)) {
      try {
        const d = await api<ReceiptDetail>(`/v1/receipts/${encodeURIComponent(turnId)}`);
        setReceiptStatus(turnId, d.receipt.status === 'verified' ? 'verified' : 'sealed');
        return;
      } catch (e) {
        if (!(e instanceof ApiError) || e.status !== 404) { setReceiptStatus(turnId, 'unknown'); return; }
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  } finally {
    polling.delete(turnId);
  }
}

/** Live status of `turnId`'s receipt; starts polling while pending. */
export function useReceiptStatus(turnId: string, initial: Status): Status {
  const s = useSyncExternalStore(
    (fn) => {
      const set = listeners.get(turnId) ?? new Set();
      set.add(fn);
      listeners.set(turnId, set);
      return () => { set.delete(fn); };
    },
    () => status.get(turnId) ?? initial,
  );
  useEffect(() => {
    if (!status.has(turnId) && initial !== 'pending') status.set(turnId, initial);
    if ((status.get(turnId) ?? initial) === 'pending') void poll(turnId);
  }, [turnId, initial]);
  return s;
}
