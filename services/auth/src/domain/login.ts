/**
 * Password login with throttling (spec: "Public auth surface" POST /v1/auth/login; DESIGN.md
 * "Request bodies the spec leaves open").
 *
 * Throttling: failures are counted per account (the lower-cased username as typed, so unknown
 * accounts are throttled too and existence does not leak) and per client IP inside a sliding window.
 * Once either count reaches its maximum, the attempt is refused with 429 `login_throttled` and a
 * `Retry-After` (seconds until enough counted failures leave the window) before any password check.
 * Every attempt is recorded as a failure before the password is checked, so parallel guesses cannot
 * slip past the count; a successful login then clears the account's failures.
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { TokenResponse } from '../contracts.js';
import type { PasswordHasher } from './passwords.js';
import type { Clock, FailureStats, LoginFailureStore, Transactor, UserStore } from './ports.js';
import { accountDisabled, type TokenService } from './tokens.js';

/** Login settings from `AuthConfig`. */
export interface LoginSettings {
  passwordLoginEnabled: boolean;
  loginMaxFailuresPerAccount: number;
  loginMaxFailuresPerIp: number;
  /** Seconds. */
  loginThrottleWindowSeconds: number;
}

/** Dependencies of `LoginService`. */
export interface LoginDeps {
  settings: LoginSettings;
  users: UserStore;
  failures: LoginFailureStore;
  hasher: PasswordHasher;
  tokens: TokenService;
  tx: Transactor;
  clock: Clock;
}

/** The single message for unknown users and wrong passwords. */
export const INVALID_CREDENTIALS_MESSAGE = 'invalid username or password';

/** Handles password logins. */
export class LoginService {
  constructor(private readonly deps: LoginDeps) {}

  /**
   * Log in by username (email) and password from client `ip`.
   * @returns a token response in a new session.
   * @throws DomainError `password_login_disabled`, `login_throttled` (with `retry-after`),
   *   `invalid_credentials`, `account_disabled` (only after a correct password).
   */
  async login(username: string, password: string, ip: string): Promise<TokenResponse> {
    const { settings, users, failures, hasher, tx, clock } = this.deps;
    if (!settings.passwordLoginEnabled) throw new DomainError('password_login_disabled', 'password login is disabled');
    const account = username.trim().toLowerCase();
    const attempt = tx(() => {
      const now = clock();
      const retryAt = this.blockedUntil(account, ip, now);
      if (retryAt !== null) return { blocked: Math.max(1, Math.ceil((retryAt - now) / 1000)) };
      return { id: failures.record(account, ip, now) };
    });
    if ('blocked' in attempt) {
      throw new DomainError('login_throttled', 'too many failed logins; try again later', { headers: { 'retry-after': String(attempt.blocked) } });
    }
    const user = users.byEmail(account);
    const ok = await hasher.verify(password, user?.password_hash ?? null);
    if (!user || !ok) throw new DomainError('invalid_credentials', INVALID_CREDENTIALS_MESSAGE);
    if (user.disabled) {
      failures.remove(attempt.id);
      throw accountDisabled();
    }
    failures.clearAccount(account);
    if (hasher.needsRehash(user.password_hash!)) {
      const rehashed = await hasher.hash(password);
      const fresh = users.byId(user.id);
      if (fresh && fresh.password_hash === user.password_hash) users.save({ ...fresh, password_hash: rehashed });
    }
    return this.deps.tokens.issue(user);
  }

  /**
   * When the account or IP is throttled at `now` (Unix ms): the time (Unix ms) it may retry; else null.
   */
  blockedUntil(account: string, ip: string, now: number): number | null {
    const { settings, failures } = this.deps;
    const windowMs = settings.loginThrottleWindowSeconds * 1000;
    const since = now - windowMs;
    const until = (s: FailureStats): number | null => (s.blockingAt === null ? null : s.blockingAt + windowMs);
    const times = [
      until(failures.accountStats(account, since, settings.loginMaxFailuresPerAccount)),
      until(failures.ipStats(ip, since, settings.loginMaxFailuresPerIp)),
    ].filter((t): t is number => t !== null);
    return times.length ? Math.max(...times) : null;
  }
}
