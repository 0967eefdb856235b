/**
 * Who signed in how (issue 15 item 5): one row per completed sign-in, for Admin → Identity
 * (`GET /v1/admin/auth/sign-ins`). No secrets are ever recorded: no password, code, token or
 * client secret; only the user, the method, the second factor used, the issuer and client id when
 * known, and the client address (the gateway's hop stamp).
 *
 * Two entry points:
 * - `record(e)`: a sign-in that is complete now (the caller knows any second factor it ran).
 * - `passed(e)`: the first factor passed; when the user needs a second factor
 *   (`secondFactorRequired`), the event is held in memory until `secondFactorPassed(userId, how)`
 *   (called by the login challenges when one is released) records it with the method used; a held
 *   event that never completes is dropped after `HOLD_MS`. Without a second factor it is recorded
 *   at once.
 *
 * Recording never throws: a failed write is logged and the sign-in goes on.
 */
import type { Awaitable } from '../../../shared/db/async-store.js';
import { clampLimit, pageFromRows, requireCursor } from '../../../shared/http/pagination.js';
import { SIGN_INS_PAGE, SIGN_IN_COUNT_DAYS, SIGN_IN_KEEP_DAYS, type SignInPage } from '../contracts/sign-ins.js';
import type { Clock } from './ports.js';

const DAY_MS = 86_400_000;

function isPosition(v: unknown): v is SignInPosition {
  const p = v as SignInPosition;
  return typeof v === 'object' && v !== null && Number.isInteger(p.at) && Number.isInteger(p.id);
}

/**
 * How the user proved who they are (the first factor, like the token's `auth_method`); the channel
 * (the sign-in page with PKCE, the gateway's password grant) is told by `client_id`.
 */
export type SignInMethod =
  | 'password' // local password (gateway login, IdP password grant, the IdP's sign-in page)
  | 'directory' // corporate directory password (dirauth)
  | 'upstream_oidc' // brokered to an upstream IdP
  | 'mobile' // phone pairing (mobile tokens)
  | 'installer_handoff'; // the installer's one-time handoff

/** The second factor used, when one was. */
export type SignInSecondFactor = 'push' | 'totp' | 'recovery_code' | 'enroll';

/** One sign-in as a caller reports it. */
export interface SignInEvent {
  user_id: string;
  /** The account's email, when known (lower-cased). */
  email?: string | null;
  method: SignInMethod;
  second_factor?: SignInSecondFactor | null;
  /** Issuer of the tokens issued, or the upstream issuer for `upstream_oidc`. */
  issuer?: string | null;
  /** OAuth client id (e.g. `svc-frontend`, `svc-web-password`), when known. */
  client_id?: string | null;
  /** Client address (the gateway's hop stamp, else the TCP peer). */
  client_ip?: string | null;
}

/** A stored sign-in row. */
export interface SignInRecord {
  /** Monotonic row id. */
  id: number;
  /** Unix ms. */
  at: number;
  user_id: string;
  email: string | null;
  method: SignInMethod;
  second_factor: SignInSecondFactor | null;
  issuer: string | null;
  client_id: string | null;
  client_ip: string | null;
}

/** Keyset position of a page: the last row's `at` and `id` (newest first). */
export interface SignInPosition { at: number; id: number }

/** The `sign_ins` table (migrations/auth/0007_sign_ins.sql). */
export interface SignInStore {
  insert(r: Omit<SignInRecord, 'id'>): Awaitable<void>;
  /** Up to `limit` rows older than `before` (or the newest when null), newest first. */
  page(before: SignInPosition | null, limit: number): Awaitable<SignInRecord[]>;
  /** Count per method since `since` (Unix ms). */
  countsByMethod(since: number): Awaitable<Array<{ method: string; count: number }>>;
  /** Delete rows older than `before` (Unix ms). @returns rows deleted. */
  prune(before: number): Awaitable<number>;
}

/** Dependencies of `SignInLog`. */
export interface SignInLogDeps {
  store: SignInStore;
  clock: Clock;
  /** Whether the user's sign-in goes on to a second factor (the login challenges' `required`). */
  secondFactorRequired: (userId: string) => Awaitable<boolean>;
  log: { warn(obj: object, msg: string): void };
}

/** How long a first factor waits for its second, ms (longer than a challenge's lifetime plus grace). */
export const HOLD_MS = 10 * 60_000;

/** The sign-in log port of the auth domain. */
export class SignInLog {
  private readonly held = new Map<string, { e: SignInEvent; at: number }>();

  constructor(private readonly deps: SignInLogDeps) {}

  /** Record a completed sign-in now. Never throws. */
  async record(e: SignInEvent): Promise<void> {
    try {
      await this.deps.store.insert({
        at: this.deps.clock(), user_id: e.user_id, email: e.email ?? null, method: e.method, second_factor: e.second_factor ?? null,
        issuer: e.issuer ?? null, client_id: e.client_id ?? null, client_ip: e.client_ip ?? null,
      });
    } catch (err) {
      this.deps.log.warn({ err: (err as Error).message, user_id: e.user_id }, 'sign-in log write failed');
    }
  }

  /** The first factor passed: record now, or hold until the second factor (see the header). Never throws. */
  async passed(e: SignInEvent): Promise<void> {
    let required = false;
    try { required = await this.deps.secondFactorRequired(e.user_id); } catch { required = false; }
    if (!required) { await this.record(e); return; }
    const now = this.deps.clock();
    for (const [k, v] of this.held) if (v.at + HOLD_MS <= now) this.held.delete(k);
    this.held.set(e.user_id, { e, at: now });
  }

  /** A login challenge of `userId` was released with `how`: record the held first factor, if any. */
  async secondFactorPassed(userId: string, how: SignInSecondFactor): Promise<void> {
    const h = this.held.get(userId);
    if (!h) return;
    this.held.delete(userId);
    if (h.at + HOLD_MS <= this.deps.clock()) return;
    await this.record({ ...h.e, second_factor: how });
  }

  /**
   * A page of the log, newest first, with the count per method over the last `SIGN_IN_COUNT_DAYS`.
   * @throws DomainError `invalid_request` (400) for a cursor this service did not issue.
   */
  async page(cursor: string | null, limit: number | undefined): Promise<SignInPage> {
    const n = clampLimit(limit, SIGN_INS_PAGE);
    const before = cursor ? requireCursor(cursor, isPosition) : null;
    const rows = await this.deps.store.page(before, n + 1);
    const page = pageFromRows(rows, n, (r) => ({ at: r.at, id: r.id }));
    const since = this.deps.clock() - SIGN_IN_COUNT_DAYS * DAY_MS;
    const out: SignInPage = {
      items: page.items.map((r) => ({ ...r, at: new Date(r.at).toISOString() })),
      counts: await this.deps.store.countsByMethod(since),
      counts_since: new Date(since).toISOString(),
    };
    if (page.next_cursor) out.next_cursor = page.next_cursor;
    return out;
  }

  /** Delete rows older than `SIGN_IN_KEEP_DAYS` at `now` (Unix ms). @returns rows deleted. */
  async prune(now: number): Promise<number> {
    return this.deps.store.prune(now - SIGN_IN_KEEP_DAYS * DAY_MS);
  }
}
