/**
 * Keeps the gateway's `RevocationList` current by polling the auth service's revocation feed
 * (`GET /v1/internal/auth/revocations`, issue 11 item 9) every `REVOCATION_POLL_MS`, as the
 * gateway's service principal. Each poll asks only for what is new since the last one (`after` =
 * the list's cursor), so an idle poll is one small loopback request.
 *
 * While auth cannot be reached the list keeps what it had (tokens are then checked against the
 * last known list) and one warning is logged; recovery is logged once too.
 */
import type { Logger } from 'pino';
import { REVOCATION_PAGE_MAX } from '../../../auth/src/contracts.js';
import type { AuthClient } from '../../../auth/src/client.js';
import type { RevocationList } from '../domain/revocation-list.js';

/** Interval between two polls, ms: the bound on how long a revoked token keeps working (plus one poll). */
export const REVOCATION_POLL_MS = 2000;

/** Most pages read in one poll (a backlog beyond that continues at the next poll). */
const MAX_PAGES_PER_POLL = 50;

/** What `pollRevocations` needs. */
export interface RevocationFeedSource {
  revocations: AuthClient['revocations'];
}

/**
 * Bring `list` up to date: read pages after its cursor until a short page; start over when the
 * feed's `latest` is below the cursor (the auth store was replaced).
 * @param now current time, Unix ms.
 * @throws Error when auth cannot be reached or answers badly (the list keeps what it had).
 */
export async function pollRevocations(source: RevocationFeedSource, list: RevocationList, now: () => number = Date.now): Promise<void> {
  for (let page = 0; page < MAX_PAGES_PER_POLL; page++) {
    const feed = await source.revocations(list.cursor);
    if (feed.latest < list.cursor) {
      list.reset();
      continue;
    }
    list.apply(feed, now());
    if (feed.items.length < REVOCATION_PAGE_MAX) return;
  }
}

/** Options of `startRevocationPoll`. */
export interface RevocationPollOptions {
  source: RevocationFeedSource;
  list: RevocationList;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** Interval, ms (default `REVOCATION_POLL_MS`). */
  intervalMs?: number;
}

/**
 * Poll at once, then every `intervalMs` after the previous poll finished (never two at a time).
 * @returns stop (for `ctx.background`).
 */
export function startRevocationPoll(opts: RevocationPollOptions): () => void {
  const interval = opts.intervalMs ?? REVOCATION_POLL_MS;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let failing = false;
  const tick = async (): Promise<void> => {
    try {
      await pollRevocations(opts.source, opts.list);
      if (failing) opts.logger.info({ revoked: opts.list.size }, 'revocation list reachable again');
      failing = false;
    } catch (err) {
      if (!failing) opts.logger.warn({ err: (err as Error).message }, 'revocation list unavailable; checking tokens against the last known list');
      failing = true;
    }
    if (!stopped) {
      timer = setTimeout(() => { void tick(); }, interval);
      timer.unref();
    }
  };
  void tick();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
