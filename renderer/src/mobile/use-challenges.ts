/**
 * `useChallenges()`: the phone's live list of pending sign-ins (issue 14 item 5, delivery without a
 * push vendor). It reads the list once when the app opens (and whenever it comes back to the
 * foreground), then keeps a server-sent-event stream open (`?proof=`: a fresh device proof per
 * connection; the workstation ends the stream when the proof expires and the hook reconnects with a
 * new one). When the stream cannot be opened twice in a row (a proxy that buffers, an old browser) it
 * falls back to long polling (`wait=25`). A refusal naming the device (`device_revoked`,
 * `device_proof_invalid`) stops everything and is reported once.
 */
import { useCallback, useEffect, useState } from 'react';
import { challengeStreamUrl, DeviceApiError, listChallenges, type ChallengeItem, type DeviceIdentity } from './device-api';

/** How the phone currently hears of sign-ins. */
export type Delivery = 'connecting' | 'live' | 'polling' | 'offline';

const sleep = (ms: number, signal: AbortSignal): Promise<void> => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

const fatal = (err: unknown): err is DeviceApiError => err instanceof DeviceApiError && (err.code === 'device_revoked' || err.code === 'device_proof_invalid');

/** The pending challenges of the paired user, the delivery mode, and `dismiss(id)` for one answered here. */
export function useChallenges(base: string, id: DeviceIdentity | null, onFatal: (err: DeviceApiError) => void): { items: ChallengeItem[]; delivery: Delivery; dismiss(id: string): void } {
  const [items, setItems] = useState<ChallengeItem[]>([]);
  const [delivery, setDelivery] = useState<Delivery>('connecting');

  useEffect(() => {
    if (!id) return;
    const stop = new AbortController();
    let es: EventSource | null = null;
    let failures = 0;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const fail = (err: unknown): boolean => {
      if (fatal(err)) { stop.abort(); es?.close(); onFatal(err); return true; }
      return false;
    };
    const refresh = async (): Promise<void> => {
      try {
        setItems(await listChallenges(base, id, undefined, stop.signal));
      } catch (err) {
        if (!fail(err) && !stop.signal.aborted) setDelivery('offline');
      }
    };
    const poll = async (): Promise<void> => {
      setDelivery('polling');
      while (!stop.signal.aborted) {
        try {
          const list = await listChallenges(base, id, 25, stop.signal);
          setItems(list);
          setDelivery('polling');
          // The long poll answers at once while a challenge is pending: do not spin on it.
          if (list.length > 0) await sleep(2000, stop.signal);
        } catch (err) {
          if (stop.signal.aborted || fail(err)) return;
          setDelivery('offline');
          await sleep(5000, stop.signal);
        }
      }
    };
    const stream = async (): Promise<void> => {
      if (stop.signal.aborted) return;
      if (typeof EventSource === 'undefined' || failures >= 2) { void poll(); return; }
      let url: string;
      try { url = await challengeStreamUrl(base, id); } catch { void poll(); return; }
      if (stop.signal.aborted) return;
      let opened = false;
      const source = new EventSource(url);
      es = source;
      source.addEventListener('open', () => {
        opened = true;
        failures = 0;
        setDelivery('live');
        // The stream re-sends every pending challenge; the list read also drops those answered elsewhere.
        void refresh();
      });
      source.addEventListener('challenge', (e) => {
        try {
          const it = JSON.parse((e as MessageEvent<string>).data) as ChallengeItem;
          setItems((prev) => [...prev.filter((p) => p.challenge_id !== it.challenge_id), it]);
        } catch { /* not an item */ }
      });
      source.addEventListener('error', () => {
        source.close();
        if (es === source) es = null;
        if (stop.signal.aborted) return;
        if (!opened) {
          failures += 1;
          // EventSource hides the status: a plain read tells a revoked device from a network problem.
          void refresh();
        }
        retry = setTimeout(() => { void stream(); }, opened ? 250 : 1500);
      });
    };
    void refresh();
    void stream();
    const onVisible = (): void => { if (document.visibilityState === 'visible') void refresh(); };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      stop.abort();
      es?.close();
      if (retry) clearTimeout(retry);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [base, id, onFatal]);

  const dismiss = useCallback((cid: string) => setItems((prev) => prev.filter((p) => p.challenge_id !== cid)), []);
  return { items, delivery, dismiss };
}
