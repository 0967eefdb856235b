/**
 * What the gateway's second-factor use case needs from outside (issue 14 item 3; spec
 * "Mobile-push second factor", "States and transitions" login rows): the auth service's
 * login-challenge calls, and a store where a password-verified login waits for its second factor.
 */
import type {
  LoginChallengeCreate, LoginChallengeCreated, LoginChallengeRequired, LoginChallengeVerdict, LoginChallengeVerify,
} from '../../../auth/src/contracts.js';

/**
 * A login whose password was verified, parked under its challenge id until the second factor
 * releases it ("Parked challenge" in the spec's States table).
 */
export interface ParkedLogin {
  /** The auth service's token response, as the JSON text it answered (sent as is on release). */
  bundle: string;
  /** Whose login it is (the access token's `sub`); release checks auth approved the same user. */
  user_id: string;
  /** When the challenge expires, RFC 3339. */
  expires_at: string;
}

/**
 * Which gateway holds each AG-UI run paused on an interrupt (issue 21; agui/interrupts.ts keeps the
 * run itself, an open upstream stream, in that gateway's memory). With REDIS_URL every gateway of a
 * deployment shares it (`store/paused-runs-redis.ts`), so a resume reaching another gateway is
 * forwarded to the holder; without Redis there is one gateway and no directory.
 */
export interface PausedRunDirectory {
  /** Record that this gateway holds a run paused on approval ids `ids`, for `ttlMs`. */
  announce(ids: readonly string[], ttlMs: number): Promise<void>;
  /** Forget `ids` (the run was resumed or dropped here). */
  forget(ids: readonly string[]): Promise<void>;
  /** The base URL of the gateway holding a run paused on any of `ids`, or null when none is known. */
  holder(ids: readonly string[]): Promise<string | null>;
}

/**
 * Where parked logins wait (spec: "shared store when REDIS_URL is set, in-process otherwise").
 * Implementations: `store/challenge-parking.ts` (a Map) and `store/challenge-parking-redis.ts`.
 */
export interface ChallengeParking {
  /**
   * Park `login` under `challengeId` for `ttlMs` milliseconds (after which it is gone).
   * @throws DomainError `service_unavailable` when the store cannot take it.
   */
  park(challengeId: string, login: ParkedLogin, ttlMs: number): Promise<void>;
  /**
   * Remove and return the login parked under `challengeId`, atomically: of any number of concurrent
   * calls (on any gateway sharing the store) at most one gets it. Null when absent or expired.
   * @throws DomainError `service_unavailable` when the store cannot be read.
   */
  take(challengeId: string): Promise<ParkedLogin | null>;
}

/**
 * The auth service's login-challenge routes as the gateway uses them (auth's `LoginChallengeClient`,
 * adapted in `clients/login-challenges.ts`). Every failure is a `DomainError` with a code of the
 * gateway's table (`code_invalid`, `challenge_denied`, `challenge_used`, `challenge_expired`,
 * `challenge_throttled`, `invalid_request`) or `service_unavailable`.
 */
export interface SecondFactorAuthority {
  /** `GET /login-challenge/required?user_id=`. */
  required(userId: string): Promise<LoginChallengeRequired>;
  /** `POST /login-challenge`. */
  create(input: LoginChallengeCreate): Promise<LoginChallengeCreated>;
  /** `POST /login-challenge/verify`: pending, or approved exactly once. */
  verify(input: LoginChallengeVerify): Promise<LoginChallengeVerdict>;
}
