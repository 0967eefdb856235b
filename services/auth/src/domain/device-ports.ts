/**
 * What the second-factor domain (issue 14: devices, pairings, login challenges, recovery codes,
 * device proofs, the policy) needs from persistence and the outside world. `store/` implements the
 * tables over SQLite; `clients/security-events.ts` the audit rows and notifications. Shaped so a
 * PostgreSQL implementation could stand behind them (no statements leak through).
 */

import type { Awaitable } from '../../../shared/db/async-store.js';

/** A paired (or revoked) device. Times Unix ms. */
export interface DeviceRecord {
  /** ULID. */
  id: string;
  user_id: string;
  name: string;
  /** Public P-256 JWK `{kty, crv, x, y}`. */
  public_jwk: { kty: string; crv: string; x: string; y: string };
  /** RFC 7638 thumbprint of `public_jwk`. */
  jwk_thumbprint: string;
  /** base32 RFC 6238 secret. */
  totp_secret: string;
  /** Last accepted TOTP time step, or null. */
  totp_last_step: number | null;
  /** The live mobile refresh token's jti; null once revoked. */
  current_refresh_jti: string | null;
  state: 'paired' | 'revoked';
  created_at: number;
  last_seen_at: number | null;
  revoked_at: number | null;
}

/** Devices. */
export interface DeviceStore {
  /** Insert a device. @returns false when its key (thumbprint) is already paired. */
  insert(device: DeviceRecord): Awaitable<boolean>;
  byId(id: string): Awaitable<DeviceRecord | null>;
  /** Every device of a user, newest first. */
  byUser(userId: string): Awaitable<DeviceRecord[]>;
  /** Paired devices of a user. */
  pairedCount(userId: string): Awaitable<number>;
  rename(id: string, name: string): Awaitable<void>;
  /**
   * Compare-and-swap the live refresh jti: set `next` only where the device is paired and holds
   * `expected`. @returns true when this call swapped it.
   */
  swapRefresh(id: string, expected: string, next: string): Awaitable<boolean>;
  /** Mark revoked at `at` and clear the refresh jti. @returns true when it was paired. */
  revoke(id: string, at: number): Awaitable<boolean>;
  /** Record that a proof of the device was accepted at `at`. */
  touch(id: string, at: number): Awaitable<void>;
  /** Accept TOTP step `step` unless a step at or after it was used. @returns true when accepted now. */
  useTotpStep(id: string, step: number): Awaitable<boolean>;
}

/** A pairing (the enrollment token's server side). */
export interface EnrollmentRecord {
  /** ULID = the token's jti. */
  id: string;
  user_id: string;
  nonce: string;
  /** The login challenge that offered this pairing (enforced user without a device), or null. */
  challenge_id: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  device_id: string | null;
}

/** Pairings. */
export interface EnrollmentStore {
  insert(e: EnrollmentRecord): Awaitable<void>;
  byId(id: string): Awaitable<EnrollmentRecord | null>;
  /** Unused, unexpired pairings of the user at `now` opened from the account page (no challenge). */
  pendingCount(userId: string, now: number): Awaitable<number>;
  /** Spend the pairing for `deviceId` if unused. @returns true when this call spent it. */
  markUsed(id: string, at: number, deviceId: string): Awaitable<boolean>;
  /** Delete pairings that expired before `before`. */
  prune(before: number): Awaitable<number>;
}

/** Login challenge states (see migrations/auth/0003_devices.sql). */
export type ChallengeState = 'pending' | 'approved' | 'denied' | 'released' | 'expired';

/** How a challenge ended. */
export type ChallengeOutcome = 'approve' | 'deny' | 'wrong_number' | 'report' | 'totp' | 'recovery_code' | 'codes_exhausted' | 'superseded' | 'timeout';

/** A login challenge. */
export interface ChallengeRecord {
  id: string;
  user_id: string;
  number_match: number;
  numbers: number[];
  methods: string[];
  client_ip: string;
  user_agent: string;
  state: ChallengeState;
  outcome: ChallengeOutcome | null;
  device_id: string | null;
  code_failures: number;
  created_at: number;
  expires_at: number;
  answered_at: number | null;
}

/** Login challenges. */
export interface ChallengeStore {
  insert(c: ChallengeRecord): Awaitable<void>;
  byId(id: string): Awaitable<ChallengeRecord | null>;
  /** Challenges of the user created after `since`. */
  countSince(userId: string, since: number): Awaitable<number>;
  /** The oldest creation time among the user's challenges after `since`, or null. */
  oldestSince(userId: string, since: number): Awaitable<number | null>;
  /** Pending, unexpired challenges of the user at `now`, oldest first. */
  pendingOf(userId: string, now: number): Awaitable<ChallengeRecord[]>;
  /**
   * Move `id` from state `from` to `to` (compare-and-swap), recording outcome, device and time.
   * @returns true when this call moved it.
   */
  transition(id: string, from: ChallengeState, to: ChallengeState, outcome: ChallengeOutcome | null, deviceId: string | null, at: number): Awaitable<boolean>;
  /** Expire every pending challenge of the user (a newer one replaces them). @returns rows changed. */
  expirePending(userId: string, at: number): Awaitable<number>;
  /** Count one wrong code. @returns the failures now. */
  addCodeFailure(id: string): Awaitable<number>;
  /** Delete challenges created before `before`. */
  prune(before: number): Awaitable<number>;
}

/** Recovery codes of users (only sha256 hashes). */
export interface RecoveryCodeStore {
  /** Replace the user's set with `hashes`, created at `at`. */
  replace(userId: string, hashes: string[], at: number): Awaitable<void>;
  /** Spend one unused code. @returns true when this call spent it. */
  use(userId: string, hash: string, at: number): Awaitable<boolean>;
  /** Unused codes left and when the set was made. */
  status(userId: string): Awaitable<{ remaining: number; created_at: number | null }>;
}

/** Seen device-proof and answer jtis, until their exp. */
export interface ProofJtiStore {
  /** Remember `jti` of `deviceId` until `expiresAt`. @returns false when it was already seen (a replay). */
  remember(deviceId: string, jti: string, expiresAt: number): Awaitable<boolean>;
  /** Forget jtis that expired before `before`. */
  prune(before: number): Awaitable<number>;
}

/** The admin's second-factor setting (none: the env default). */
export interface PolicyStore {
  get(): Awaitable<{ enforced: boolean; updated_at: number; updated_by: string } | null>;
  set(enforced: boolean, at: number, by: string): Awaitable<void>;
}

/** The audit actions of the second factor (issue 14 item 6). */
export type SecurityAction =
  | 'auth.device.paired' | 'auth.device.revoked' | 'auth.device.refresh_reused'
  | 'auth.challenge.created' | 'auth.challenge.approved' | 'auth.challenge.denied' | 'auth.challenge.reported'
  | 'auth.challenge.code_failed' | 'auth.recovery_codes.generated';

/** One audit row: never a secret, code or token in `detail`. */
export interface SecurityAuditEvent {
  action: SecurityAction;
  /** Whose device or login. */
  user_id: string;
  resource_type: 'device' | 'login_challenge' | 'recovery_codes';
  resource_id: string;
  detail: Record<string, string | number | boolean | null>;
}

/** Notification kinds auth sends its users (agent runtime's NOTIFICATION_KINDS). */
export type SecurityNoticeKind = 'device_paired' | 'device_revoked' | 'login_reported';

/** A notification to a user. */
export interface SecurityNotice {
  user_id: string;
  kind: SecurityNoticeKind;
  title: string;
  body: string;
  payload: Record<string, string | number | null>;
  /** Repeat-safe key. */
  idempotency_key: string;
}

/** Where audit rows and notifications go; both best effort, never throwing, never awaited by a use case. */
export interface SecurityEvents {
  audit(event: SecurityAuditEvent): void;
  notify(notice: SecurityNotice): void;
}
