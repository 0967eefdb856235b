/**
 * What the auth domain needs from persistence and the outside world. `store/` implements these
 * over SQLite (`store/*.ts`) or PostgreSQL (`store/pg/*.ts`) and the data directory; tests may pass
 * fakes. Store ports answer `Awaitable` values (issue 21 item 1): the domain awaits every call.
 */

import type { AsyncTransactor, Awaitable } from '../../../shared/db/async-store.js';

/** Current time, Unix milliseconds. */
export type Clock = () => number;

/**
 * Run `fn` atomically (all of its awaited store calls commit or none do; issue 21 item 1): the
 * store's `txAsync`. Inside `fn` await only store calls, never another service or the network.
 */
export type Transactor = AsyncTransactor;

/** A stored local account. */
export interface UserRecord {
  /** ULID. */
  id: string;
  /** Lower-cased. */
  email: string;
  display_name: string;
  /** `scrypt$N$r$p$salt_b64$hash_b64`, or null when the account cannot log in by password. */
  password_hash: string | null;
  roles: string[];
  disabled: boolean;
  /** RFC 3339 UTC. */
  created_at: string;
  /** RFC 3339 UTC. */
  updated_at: string;
}

/** Accounts. */
export interface UserStore {
  /** Insert a new account. @returns false when the email is taken. */
  insert(user: UserRecord): Awaitable<boolean>;
  /** Replace the mutable columns (display_name, password_hash, roles, disabled, updated_at). */
  save(user: UserRecord): Awaitable<void>;
  byId(id: string): Awaitable<UserRecord | null>;
  /** Case-insensitive lookup. */
  byEmail(email: string): Awaitable<UserRecord | null>;
  /** Up to `limit` accounts with id > `after` (null: from the start), ordered by id. */
  list(after: string | null, limit: number): Awaitable<UserRecord[]>;
  count(): Awaitable<number>;
}

/** A stored refresh token (the token itself is never stored, only its sha256). */
export interface RefreshTokenRecord {
  /** ULID. */
  jti: string;
  /** sha256 hex of the opaque token. */
  token_hash: string;
  family_id: string;
  user_id: string;
  /** Unix ms. */
  issued_at: number;
  /** Unix ms. */
  expires_at: number;
  /** Unix ms when rotated, or null. */
  used_at: number | null;
  /** Unix ms when revoked, or null. */
  revoked_at: number | null;
}

/** Refresh tokens and their families. */
export interface RefreshTokenStore {
  insert(token: RefreshTokenRecord): Awaitable<void>;
  byHash(tokenHash: string): Awaitable<RefreshTokenRecord | null>;
  /** Mark spent unless already used or revoked. @returns true when this call spent it. */
  markUsed(jti: string, at: number): Awaitable<boolean>;
  /** Revoke every live token of a family. @returns rows changed. */
  revokeFamily(familyId: string, at: number): Awaitable<number>;
  /** Revoke every live token of a user. @returns rows changed. */
  revokeUser(userId: string, at: number): Awaitable<number>;
  /** Delete tokens that expired before `before` (Unix ms). @returns rows deleted. */
  pruneExpired(before: number): Awaitable<number>;
}

/** Count of recent failures for one key and when the oldest one that matters leaves the window. */
export interface FailureStats {
  count: number;
  /**
   * When count >= max: time (Unix ms) of the failure whose expiry brings the count below max;
   * otherwise null.
   */
  blockingAt: number | null;
}

/**
 * Login failures (and in-flight attempts) inside the throttle window, one row per attempt: the
 * per-source cap across accounts (password spraying) counts these.
 */
export interface LoginFailureStore {
  /** Record an attempt from source `ip` (a `sourceKey`). @returns its row id. */
  record(account: string, ip: string, at: number): Awaitable<number>;
  /** Forget one attempt (it turned out not to be a guess). */
  remove(id: number): Awaitable<void>;
  /** Failures from `ip` after `since` (Unix ms, exclusive), with the blocking time relative to `max`. */
  ipStats(ip: string, since: number, max: number): Awaitable<FailureStats>;
  /** Forget the failures of `account` from source `ip` (after a correct password from there). */
  clearPair(account: string, ip: string): Awaitable<void>;
  /** Delete failures older than `before` (Unix ms). */
  prune(before: number): Awaitable<number>;
}

/** Failed password attempts of one account from one source (issue 11 item 2). */
export interface ThrottleState {
  /** Consecutive failures not yet forgotten. */
  failures: number;
  /** Latest counted attempt, Unix ms. */
  last_at: number;
}

/** Per (account, source) failure counters behind the growing login delays (issue 11 item 2). */
export interface LoginThrottleStore {
  /**
   * Inside a transaction: hold the counting of source `source`'s attempts until it ends, so
   * concurrent attempts from one source are counted one after the other (SQLite: the write
   * transaction already is exclusive, a no-op; PostgreSQL: an advisory transaction lock).
   */
  lockSource(source: string): Awaitable<void>;
  get(account: string, source: string): Awaitable<ThrottleState | null>;
  /** Insert or replace the pair's state. */
  put(account: string, source: string, state: ThrottleState): Awaitable<void>;
  /** Forget the pair (a correct password from that source). */
  clear(account: string, source: string): Awaitable<void>;
  /** Delete pairs whose latest attempt is older than `before` (Unix ms). @returns rows deleted. */
  prune(before: number): Awaitable<number>;
}

/** One revocation: every access token of `subject` (or of its session `session_id`) issued at or before `revoked_at`. */
export interface RevocationRecord {
  /** Increasing sequence number (the pollers' cursor). */
  seq: number;
  /** User id (the tokens' `sub`). */
  subject: string;
  /** The tokens' `sid`, or null for every session of the subject. */
  session_id: string | null;
  /** Unix ms. */
  revoked_at: number;
}

/** Revoked subjects and sessions (issue 11 item 9): what the gateway's revocation list is fed from. */
export interface RevocationStore {
  /** Record a revocation. @returns its `seq`. */
  record(subject: string, sessionId: string | null, revokedAt: number): Awaitable<number>;
  /** Up to `limit` revocations with seq > `after` and revoked_at > `since` (Unix ms), by seq. */
  after(after: number, since: number, limit: number): Awaitable<RevocationRecord[]>;
  /** The highest seq ever handed out (0 when none), even when that row was pruned. */
  latest(): Awaitable<number>;
  /** Delete revocations older than `before` (Unix ms). @returns rows deleted. */
  prune(before: number): Awaitable<number>;
}

/** A pending installer handoff. */
export interface HandoffRecord {
  /** sha256 hex of the handoff UUID. */
  id_hash: string;
  user_id: string;
  /** Unix ms. */
  created_at: number;
}

/** Installer handoffs (only hashes of the ids). */
export interface HandoffStore {
  insert(record: HandoffRecord): Awaitable<void>;
  /** The newest unspent handoff, or null. */
  pending(): Awaitable<HandoffRecord | null>;
  /** Spend `idHash` if unspent. @returns the user id it was for, or null. */
  spend(idHash: string, at: number): Awaitable<string | null>;
  /** Spend every unspent handoff (a newer one replaces them). */
  spendAll(at: number): Awaitable<void>;
}

/** The installer-handoff file in the data directory (`{handoff_id, created_at}`, mode 0600). */
export interface HandoffFile {
  /** Write atomically with mode 0600. */
  write(doc: { handoff_id: string; created_at: string }): void;
  exists(): boolean;
  /** Remove; no error when already gone. */
  remove(): void;
}
