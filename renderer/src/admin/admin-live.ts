/**
 * Helpers of the admin surfaces (issue 13 item 8): live refresh while a panel is shown and the
 * window visible (5 s polling: every answer is a fresh request with a fresh stamp, which a
 * long-lived event stream would not have), and small formatters.
 */
import { useEffect } from 'react';

/** Refresh period of the live admin panels, ms. */
export const LIVE_REFRESH_MS = 5000;

/** Call `refetch` every `ms` while the window is visible, and when it becomes visible again. */
export function usePoll(refetch: () => Promise<void>, ms: number = LIVE_REFRESH_MS): void {
  useEffect(() => {
    const tick = (): void => { if (document.visibilityState === 'visible') void refetch(); };
    const t = setInterval(tick, ms);
    document.addEventListener('visibilitychange', tick);
    return () => { clearInterval(t); document.removeEventListener('visibilitychange', tick); };
  }, [refetch, ms]);
}

/** `12 s`, `4 min`, `2.5 h`. */
export function duration(ms: number): string {
  const s = ms / 1000;
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** How long ago an ISO time was, from `now` (epoch ms). */
export function ago(iso: string, now: number = Date.now()): string {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? `${duration(Math.max(0, now - t))} ago` : '—';
}

/** `$0.0042`, `$12.50`; `—` for null. */
export function usd(v: number | null | undefined): string {
  if (v === null || v === undefined) return '—';
  return `$${v.toFixed(v < 1 ? 4 : 2)}`;
}

/** A percentage of a 0-1 rate. */
export function pct(rate: number): string {
  return `${(rate * 100).toFixed(rate > 0 && rate < 0.1 ? 1 : 0)}%`;
}

/** `a, b ,c` -> `['a', 'b', 'c']`. */
export function splitList(text: string): string[] {
  return [...new Set(text.split(/[,\n]/).map((x) => x.trim()).filter(Boolean))];
}
