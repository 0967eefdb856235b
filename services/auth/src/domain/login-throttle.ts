/**
 * The login throttle's rules, pure (issue 11 item 2; OWASP Authentication Cheat Sheet, "Account
 * Lockout" and "Protect against automated attacks": no hard lockout a third party can trigger).
 *
 * - Per account AND source together: the first `freeFailures` wrong passwords of an account from
 *   one source cost nothing; after that each further attempt from that source waits a delay that
 *   doubles with every failure (1 s, 2 s, 4 s, ...) up to `maxDelayMs`, counted from the latest
 *   failure. Failures from one source never delay the account's logins from another source, so a
 *   third party cannot lock the owner out.
 * - A pair's failures are forgotten once its delay has ended and a further `forgetAfterMs` passed
 *   without an attempt, and at once after a correct password from that source.
 * - A source is a client IP; IPv6 addresses count by their /64 prefix (one host usually owns a
 *   whole /64, so rotating the interface id must not buy fresh counters).
 */
import { isIP } from 'node:net';
import type { ThrottleState } from './ports.js';

/** How the delays grow. */
export interface ThrottlePolicy {
  /** Failures of one (account, source) pair without any delay. */
  freeFailures: number;
  /** Delay after the first failure beyond the free ones, ms; it doubles with each further one. */
  baseDelayMs: number;
  /** Largest delay, ms. */
  maxDelayMs: number;
  /** Quiet time after the delay ended before a pair's failures are forgotten, ms. */
  forgetAfterMs: number;
}

/**
 * The throttle policy of the auth settings: `freeFailures` = `loginMaxFailuresPerAccount`, delays
 * from 1 s doubling up to the throttle window, forgotten after one more quiet window.
 */
export function throttlePolicy(settings: { loginMaxFailuresPerAccount: number; loginThrottleWindowSeconds: number }): ThrottlePolicy {
  const windowMs = settings.loginThrottleWindowSeconds * 1000;
  return { freeFailures: settings.loginMaxFailuresPerAccount, baseDelayMs: Math.min(1000, windowMs), maxDelayMs: windowMs, forgetAfterMs: windowMs };
}

/** The wait after the latest of `failures` failures before the next attempt, ms (0 while free). */
export function delayAfter(failures: number, policy: ThrottlePolicy): number {
  const over = failures - policy.freeFailures;
  if (over < 0) return 0;
  // 2^over overflows to Infinity for large counts; min() caps it.
  return Math.min(policy.baseDelayMs * 2 ** over, policy.maxDelayMs);
}

/** True when a pair's failures no longer count at `now` (Unix ms). */
export function isForgotten(state: ThrottleState, now: number, policy: ThrottlePolicy): boolean {
  return now >= state.last_at + delayAfter(state.failures, policy) + policy.forgetAfterMs;
}

/** When the pair may try again (Unix ms), or null when it may now. */
export function retryAt(state: ThrottleState | null, now: number, policy: ThrottlePolicy): number | null {
  if (!state || isForgotten(state, now, policy)) return null;
  const at = state.last_at + delayAfter(state.failures, policy);
  return at > now ? at : null;
}

/** The pair's state after one more counted attempt at `now`. */
export function afterFailure(state: ThrottleState | null, now: number, policy: ThrottlePolicy): ThrottleState {
  const failures = !state || isForgotten(state, now, policy) ? 1 : state.failures + 1;
  return { failures, last_at: now };
}

/** Expand an IPv6 address (no zone) into its 8 hextets, or null. */
function hextets(ip: string): number[] | null {
  let text = ip;
  const tail: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const q = dotted[2]!.split('.').map(Number);
    tail.push((q[0]! << 8) | q[1]!, (q[2]! << 8) | q[3]!);
    text = dotted[1]!.endsWith('::') ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const gap = text.indexOf('::');
  let groups: number[];
  if (gap >= 0) {
    const head = parse(text.slice(0, gap));
    const rest = [...parse(text.slice(gap + 2)), ...tail];
    groups = [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
  } else {
    groups = [...parse(text), ...tail];
  }
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/**
 * The throttle key of a client address: an IPv4 address as is (also when written IPv4-mapped,
 * `::ffff:192.0.2.1`), an IPv6 address as its /64 prefix (`2001:db8:1:2::/64`), anything else
 * (e.g. `unknown`) as given, cut to 64 characters.
 */
export function sourceKey(ip: string): string {
  const bare = ip.trim().replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped && isIP(mapped[1]!) === 4) return mapped[1]!;
  const kind = isIP(bare);
  if (kind === 4) return bare;
  if (kind === 6) {
    const g = hextets(bare.toLowerCase());
    if (g) return `${g.slice(0, 4).map((h) => h.toString(16)).join(':')}::/64`;
  }
  return bare.slice(0, 64);
}
