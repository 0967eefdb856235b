/**
 * What the auth domain needs from persistence and the outside world. `store/` implements these
 * over SQLite and the data directory; tests may pass fakes.
 */

/** Current time, Unix milliseconds. */
export type Clock = () => number;

/** Run `fn` atomically (all of its store calls commit or none do). `fn` must be synchronous. */
export type Transactor = <T>(fn: () => T) => T;

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
  insert(user: UserRecord): boolean;
  /** Replace the mutable columns (display_name, password_hash, roles, disabled, updated_at). */
  save(user: UserRecord): void;
  byId(id: string): UserRecord | null;
  /** Case-insensitive lookup. */
  byEmail(email: string): UserRecord | null;
  /** Up to `limit` accounts with id > `after` (null: from the start), ordered by id. */
  list(after: string | null, limit: number): UserRecord[];
  count(): number;
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
  insert(token: RefreshTokenRecord): void;
  byHash(tokenHash: string): RefreshTokenRecord | null;
  /** Mark spent unless already used or revoked. @returns true when this call spent it. */
  markUsed(jti: string, at: number): boolean;
  /** Revoke every live token of a family. @returns rows changed. */
  revokeFamily(familyId: string, at: number): number;
  /** Revoke every live token of a user. @returns rows changed. */
  revokeUser(userId: string, at: number): number;
  /** Delete tokens that expired before `before` (Unix ms). @returns rows deleted. */
  pruneExpired(before: number): number;
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

/** Login failures (and in-flight attempts) inside the throttle window. */
export interface LoginFailureStore {
  /** Record an attempt. @returns its row id. */
  record(account: string, ip: string, at: number): number;
  /** Forget one attempt (it turned out not to be a guess). */
  remove(id: number): void;
  /** Failures for `account` after `since` (Unix ms, exclusive), with the blocking time relative to `max`. */
  accountStats(account: string, since: number, max: number): FailureStats;
  /** Failures from `ip` after `since` (Unix ms, exclusive), with the blocking time relative to `max`. */
  ipStats(ip: string, since: number, max: number): FailureStats;
  /** Forget every failure of an account (after a successful login). */
  clearAccount(account: string): void;
  /** Delete failures older than `before` (Unix ms). */
  prune(before: number): number;
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
  insert(record: HandoffRecord): void;
  /** The newest unspent handoff, or null. */
  pending(): HandoffRecord | null;
  /** Spend `idHash` if unspent. @returns the user id it was for, or null. */
  spend(idHash: string, at: number): string | null;
  /** Spend every unspent handoff (a newer one replaces them). */
  spendAll(at: number): void;
}

/** The installer-handoff file in the data directory (`{handoff_id, created_at}`, mode 0600). */
export interface HandoffFile {
  /** Write atomically with mode 0600. */
  write(doc: { handoff_id: string; created_at: string }): void;
  exists(): boolean;
  /** Remove; no error when already gone. */
  remove(): void;
}
