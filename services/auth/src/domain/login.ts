/**
 * Password login with throttling (spec: "Public auth surface" POST /v1/auth/login; DESIGN.md
 * "Request bodies the spec leaves open"; issue 11 item 2).
 *
 * Throttling (rules in login-throttle.ts), checked before any password check:
 * - per account AND source together (the lower-cased username as typed, so unknown accounts are
 *   throttled too and existence does not leak; the source is the client IP the route established,
 *   IPv6 by /64): after `loginMaxFailuresPerAccount` failures from one source, each further attempt
 *   from that source waits a delay doubling from 1 s up to the throttle window. Failures from
 *   another source do not delay the account's owner: no third party can lock an account out.
 * - per source across accounts (password spraying): `loginMaxFailuresPerIp` failures inside the
 *   sliding window, then the source waits until enough of them leave the window.
 * A throttled attempt is refused with 429 `login_throttled` and a `Retry-After` (seconds) and is not
 * counted. Every other attempt is counted before the password is checked, so parallel guesses cannot
 * slip past the count; a correct password then forgets that source's failures for the account.
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { TokenResponse } from '../contracts.js';
import type { PasswordHasher } from './passwords.js';
import { afterFailure, retryAt, sourceKey, throttlePolicy, type ThrottlePolicy } from './login-throttle.js';
import type { Clock, LoginFailureStore, LoginThrottleStore, Transactor, UserRecord, UserStore } from './ports.js';
import { accountDisabled, type TokenService } from './tokens.js';
import { provisionDirectoryAccount, type DirectoryAccountStore, type DirectoryPort } from './directory-login.js';
import type { SignInLog, SignInMethod } from './sign-in-log.js';

/** How a caller of `login` labels the sign-in in the sign-in log (issue 15 item 5); defaults: method `password`/`directory`. */
export interface SignInVia {
  method?: SignInMethod;
  client_id?: string | null;
  issuer?: string | null;
}

/** Login settings from `AuthConfig`. */
export interface LoginSettings {
  passwordLoginEnabled: boolean;
  /** Failures of one account from one source before the delays start. */
  loginMaxFailuresPerAccount: number;
  /** Failures from one source across accounts inside the window before 429. */
  loginMaxFailuresPerIp: number;
  /** Seconds: the per-source window, the largest delay, and how long a quiet pair is remembered. */
  loginThrottleWindowSeconds: number;
}

/** Dependencies of `LoginService`. */
export interface LoginDeps {
  settings: LoginSettings;
  users: UserStore;
  failures: LoginFailureStore;
  throttle: LoginThrottleStore;
  hasher: PasswordHasher;
  tokens: TokenService;
  tx: Transactor;
  clock: Clock;
  /**
   * The corporate directory (issue 15 item 3), when DIRAUTH_LDAP_URL is set: a username that is not
   * a local account with a password is verified there (directory-login.ts), under the same throttle.
   */
  directory?: { port: DirectoryPort; accounts: DirectoryAccountStore; groupRoleMap: Readonly<Record<string, readonly string[]>> };
  /** The sign-in log (issue 15 item 5): every successful login is reported with `passed`. */
  signIns?: Pick<SignInLog, 'passed'>;
}

/** The single message for unknown users and wrong passwords. */
export const INVALID_CREDENTIALS_MESSAGE = 'invalid username or password';

/** Handles password logins. */
export class LoginService {
  private readonly policy: ThrottlePolicy;

  constructor(private readonly deps: LoginDeps) {
    this.policy = throttlePolicy(deps.settings);
  }

  /**
   * Log in by username (email) and password from client address `ip`.
   * @returns a token response in a new session.
   * @throws DomainError `password_login_disabled`, `login_throttled` (with `retry-after`),
   *   `invalid_credentials`, `account_disabled` (only after a correct password).
   */
  async login(username: string, password: string, ip: string, via: SignInVia = {}): Promise<TokenResponse> {
    const user = await this.authenticate(username, password, ip);
    const tokens = await this.deps.tokens.issue(user);
    await this.signedIn(user, ip, via);
    return tokens;
  }

  /**
   * Report a successful sign-in of `user` (after `login`, or after `authenticate` by a caller that
   * issues its own tokens) to the sign-in log (issue 15 item 5): method `directory` for directory
   * accounts, else `via.method` or `password`; held there until a second factor when one follows.
   */
  async signedIn(user: Pick<UserRecord, 'id' | 'email'>, ip: string, via: SignInVia = {}): Promise<void> {
    const directory = (await this.deps.directory?.accounts.get(user.id)) ? 'directory' : null;
    await this.deps.signIns?.passed({
      user_id: user.id, email: user.email, method: directory ?? via.method ?? 'password',
      client_id: via.client_id ?? null, issuer: via.issuer ?? null, client_ip: ip,
    });
  }

  /**
   * Whether `username` is verified by the corporate directory rather than by a local password (the
   * rule of `authenticate`: directory configured, and no local account with a password). Nothing is
   * counted. Issue 15 item 1: the IdP's password grant leaves these to `login` (issuer `/auth`).
   */
  async viaDirectory(username: string): Promise<boolean> {
    if (!this.deps.directory) return false;
    const local = await this.deps.users.byEmail(username.trim().toLowerCase());
    return !local || local.password_hash === null;
  }

  /**
   * The password check of `login` without issuing a token (issue 15 item 1: the embedded IdP's
   * sign-in interaction finishes with the account instead). Same throttling, same errors.
   * @returns the signed-in account.
   */
  async authenticate(username: string, password: string, ip: string): Promise<UserRecord> {
    const { settings, users, failures, throttle, hasher, tx, clock } = this.deps;
    if (!settings.passwordLoginEnabled) throw new DomainError('password_login_disabled', 'password login is disabled');
    const account = username.trim().toLowerCase();
    const source = sourceKey(ip);
    const attempt = await tx(async (): Promise<{ blocked: number } | { id: number }> => {
      await throttle.lockSource(source);
      const now = clock();
      const retry = await this.blockedUntil(account, source, now);
      if (retry !== null) return { blocked: Math.max(1, Math.ceil((retry - now) / 1000)) };
      await throttle.put(account, source, afterFailure(await throttle.get(account, source), now, this.policy));
      return { id: await failures.record(account, source, now) };
    });
    if ('blocked' in attempt) {
      throw new DomainError('login_throttled', 'too many failed logins; try again later', { headers: { 'retry-after': String(attempt.blocked) } });
    }
    const local = await users.byEmail(account);
    if (this.deps.directory && (!local || local.password_hash === null)) return this.directoryLogin(username.trim(), password, account, source, attempt.id);
    const user = local;
    const ok = await hasher.verify(password, user?.password_hash ?? null);
    if (!user || !ok) throw new DomainError('invalid_credentials', INVALID_CREDENTIALS_MESSAGE);
    // A correct password: this source's attempts on the account were not guesses.
    await this.forgetAttempt(account, source, attempt.id);
    if (user.disabled) throw accountDisabled();
    if (hasher.needsRehash(user.password_hash!)) {
      const rehashed = await hasher.hash(password);
      const fresh = await users.byId(user.id);
      if (fresh && fresh.password_hash === user.password_hash) await users.save({ ...fresh, password_hash: rehashed });
    }
    return user;
  }

  /**
   * The directory half of `login` (issue 15 item 3), after the attempt was counted: verify at the
   * directory, forget the attempt, provision the local record, issue the normal token.
   * @throws DomainError `invalid_credentials`, `directory_unavailable` (503: dirauth or the
   *   directory is down or slow; the attempt stays counted), `directory_email_missing`,
   *   `directory_account_conflict`, `account_disabled`.
   */
  private async directoryLogin(username: string, password: string, account: string, source: string, attemptId: number): Promise<UserRecord> {
    const { port, accounts, groupRoleMap } = this.deps.directory!;
    const answer = await port.verify(username, password);
    if (answer.kind === 'unavailable') throw new DomainError('directory_unavailable', 'the corporate directory is unavailable; try again later');
    if (answer.kind !== 'ok') throw new DomainError('invalid_credentials', INVALID_CREDENTIALS_MESSAGE);
    await this.forgetAttempt(account, source, attemptId);
    const now = new Date(this.deps.clock()).toISOString();
    const user = await this.deps.tx(() => provisionDirectoryAccount(this.deps.users, accounts, answer.identity, groupRoleMap, now));
    if (user.disabled) throw accountDisabled();
    return user;
  }

  /** A correct password: this source's attempts on the account were not guesses. */
  private async forgetAttempt(account: string, source: string, attemptId: number): Promise<void> {
    const { failures, throttle, tx } = this.deps;
    await tx(async () => {
      await failures.remove(attemptId);
      await failures.clearPair(account, source);
      await throttle.clear(account, source);
    });
  }

  /**
   * When `account` from `source` (a `sourceKey`) is throttled at `now` (Unix ms): the time (Unix
   * ms) it may retry, the later of the pair's delay and the source's cap; else null.
   */
  async blockedUntil(account: string, source: string, now: number): Promise<number | null> {
    const { settings, failures, throttle } = this.deps;
    const windowMs = settings.loginThrottleWindowSeconds * 1000;
    const pair = retryAt(await throttle.get(account, source), now, this.policy);
    const spray = (await failures.ipStats(source, now - windowMs, settings.loginMaxFailuresPerIp)).blockingAt;
    const times = [pair, spray === null ? null : spray + windowMs].filter((t): t is number => t !== null);
    return times.length ? Math.max(...times) : null;
  }

  /**
   * Forget throttle state that no longer matters at `now` (Unix ms): per-source rows older than the
   * window, pairs quiet for longer than the largest delay plus the window. @returns rows deleted.
   */
  async prune(now: number): Promise<number> {
    const windowMs = this.deps.settings.loginThrottleWindowSeconds * 1000;
    return (await this.deps.failures.prune(now - windowMs)) + await this.deps.throttle.prune(now - this.policy.maxDelayMs - this.policy.forgetAfterMs);
  }
}
