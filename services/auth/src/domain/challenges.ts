/**
 * Login challenges, the gateway's side (issue 14 item 3; spec "Mobile-push second factor" steps 2-5,
 * "States and transitions" login rows; /work/2fa-brief.md "Internal routes"; docs/mobile-2fa.md).
 *
 * - `required(user)`: enrolled (a paired device) or enforced (policy on, not an admin).
 * - `create(...)`: one pending challenge per user (a new one expires the previous); more than
 *   `THROTTLE_MAX` challenges per user in `THROTTLE_WINDOW_MS` is push fatigue: 429
 *   `challenge_throttled` with `Retry-After`. TTL `SVC_2FA_CHALLENGE_TTL_SECONDS` (default 120).
 * - `verify(id, code?)`: pending -> `{status: "pending"}`; approved -> released, answered ONCE as
 *   `{status: "approved", user_id}` (then 409 `challenge_used`); with a code: a TOTP code of any
 *   paired device of the user (±1 step, each step once per device) or an unused recovery code
 *   releases at once; a wrong one is 401 `code_invalid`, and the `CODE_FAILURES_MAX`th denies the
 *   challenge. Denied -> 403 `challenge_denied`; expired or unknown -> 410 `challenge_expired`.
 *
 * The phone's side (listing and answering) is in challenge-answers.ts.
 */
import { monotonicFactory } from 'ulid';
import { DomainError, notFoundError } from '../../../shared/kit/domain-error.js';
import type {
  ChallengeMethod, LoginChallengeCreate, LoginChallengeCreated, LoginChallengeRequired, LoginChallengeVerdict,
} from '../contracts.js';
import type { ChallengeBus } from './challenge-bus.js';
import type { ChallengeRecord, ChallengeStore, DeviceStore, SecurityEvents } from './device-ports.js';
import type { EnrollmentService } from './enrollment.js';
import { numberMatch } from './number-match.js';
import type { Clock, Transactor, UserRecord, UserStore } from './ports.js';
import type { RecoveryCodeService } from './recovery-codes.js';
import type { PolicyService } from './second-factor-policy.js';
import { matchTotp } from './totp.js';
import type { SignInLog } from './sign-in-log.js';

/** Challenges per user allowed inside the throttle window (push fatigue). */
export const THROTTLE_MAX = 5;
/** The throttle window, ms (10 minutes). */
export const THROTTLE_WINDOW_MS = 10 * 60_000;
/** Wrong codes that deny a challenge. */
export const CODE_FAILURES_MAX = 5;
/** How long after its expiry an approved challenge may still be released, ms (the browser polls once a second). */
export const RELEASE_GRACE_MS = 30_000;
/** Default challenge lifetime, seconds. */
export const CHALLENGE_TTL_DEFAULT_SECONDS = 120;

/** Dependencies of `ChallengeService`. */
export interface ChallengeDeps {
  challenges: ChallengeStore;
  devices: DeviceStore;
  users: UserStore;
  codes: RecoveryCodeService;
  policy: PolicyService;
  enrollment: EnrollmentService;
  events: SecurityEvents;
  bus: ChallengeBus;
  tx: Transactor;
  clock: Clock;
  /** Challenge lifetime, seconds. */
  ttlSeconds: number;
  /** The sign-in log (issue 15 item 5): told the second factor used when a challenge is released. */
  signIns?: Pick<SignInLog, 'secondFactorPassed'>;
}

const newId = monotonicFactory();

/** 410 `challenge_expired`. */
export function challengeExpired(): DomainError {
  return new DomainError('challenge_expired', 'the sign-in request expired; sign in again');
}
function challengeUsed(): DomainError {
  return new DomainError('challenge_used', 'this sign-in was already completed');
}
function challengeDenied(): DomainError {
  return new DomainError('challenge_denied', 'the sign-in was denied');
}
function codeInvalid(): DomainError {
  return new DomainError('code_invalid', 'the code is wrong or was already used');
}

/** The gateway's side of login challenges. */
export class ChallengeService {
  constructor(private readonly deps: ChallengeDeps) {}

  /** Whether `userId`'s login needs a second factor, and how it could be given. Unknown users need none. */
  async required(userId: string): Promise<LoginChallengeRequired> {
    const user = await this.deps.users.byId(userId);
    if (!user) return { required: false, enrolled: false, enforced: false, methods: [] };
    const { enrolled, enforced, methods } = await this.methodsOf(user);
    return { required: enrolled || enforced, enrolled, enforced, methods: enrolled || enforced ? methods : [] };
  }

  /**
   * Open a challenge for a login whose password was verified.
   * @throws DomainError `not_found` (unknown user), `conflict` (no second factor required),
   *   `challenge_throttled` (with `retry-after`).
   */
  async create(input: LoginChallengeCreate): Promise<LoginChallengeCreated> {
    const { challenges, clock, tx, ttlSeconds } = this.deps;
    const user = await this.deps.users.byId(input.user_id);
    if (!user) throw notFoundError('user not found');
    const { enrolled, enforced, methods } = await this.methodsOf(user);
    if (!enrolled && !enforced) throw new DomainError('conflict', 'this user needs no second factor');
    const now = clock();
    await this.throttle(user.id, now);
    const id = newId();
    const enrollmentUrl = methods.includes('enroll') ? (await this.deps.enrollment.open(user.id, id)).enrollment_url : undefined;
    const { number, numbers } = numberMatch();
    const record: ChallengeRecord = {
      id, user_id: user.id, number_match: number, numbers, methods, client_ip: input.client_ip, user_agent: input.user_agent,
      state: 'pending', outcome: null, device_id: null, code_failures: 0, created_at: now, expires_at: now + ttlSeconds * 1000, answered_at: null,
    };
    await tx(async () => {
      await this.throttle(user.id, now);
      await challenges.expirePending(user.id, now);
      await challenges.insert(record);
    });
    this.deps.bus.publish(user.id);
    this.deps.events.audit({
      action: 'auth.challenge.created', user_id: user.id, resource_type: 'login_challenge', resource_id: id,
      detail: { challenge_id: id, client_ip: input.client_ip, methods: methods.join(','), enforced, enrolled },
    });
    const out: LoginChallengeCreated = { challenge_id: id, methods, number_match: number, expires_at: new Date(record.expires_at).toISOString() };
    if (enrollmentUrl !== undefined) out.enrollment_url = enrollmentUrl;
    return out;
  }

  /**
   * The gateway's poll (and the offline/recovery code check); see the file header.
   * @throws DomainError `challenge_expired`, `challenge_used`, `challenge_denied`, `code_invalid`.
   */
  async verify(challengeId: string, code?: string): Promise<LoginChallengeVerdict> {
    const c = await this.deps.challenges.byId(challengeId);
    if (!c) throw challengeExpired();
    const now = this.deps.clock();
    switch (c.state) {
      case 'pending':
        if (c.expires_at <= now) {
          await this.expire(c, now);
          throw challengeExpired();
        }
        return code === undefined ? { status: 'pending' } : this.checkCode(c, code, now);
      case 'approved':
        if (c.expires_at + RELEASE_GRACE_MS <= now) throw challengeExpired();
        if (!await this.deps.challenges.transition(c.id, 'approved', 'released', c.outcome, c.device_id, c.answered_at ?? now)) throw challengeUsed();
        await this.deps.signIns?.secondFactorPassed(c.user_id, c.methods.includes('enroll') ? 'enroll' : 'push');
        return { status: 'approved', user_id: c.user_id };
      case 'released': throw challengeUsed();
      case 'denied': throw challengeDenied();
      default: throw challengeExpired();
    }
  }

  /** Expire pending challenges past their TTL would be lazy; this marks one now (and tells the phone). */
  private async expire(c: ChallengeRecord, now: number): Promise<void> {
    if (await this.deps.challenges.transition(c.id, 'pending', 'expired', 'timeout', null, now)) this.deps.bus.publish(c.user_id);
  }

  /** TOTP of any paired device (6 digits) or a recovery code; releases at once, or counts a failure. */
  private async checkCode(c: ChallengeRecord, typed: string, now: number): Promise<LoginChallengeVerdict> {
    const code = typed.replace(/\s/g, '');
    let how: { outcome: 'totp' | 'recovery_code'; device: string | null } | null = null;
    if (/^\d{6}$/.test(code)) {
      for (const d of await this.deps.devices.byUser(c.user_id)) {
        if (d.state !== 'paired') continue;
        const step = matchTotp(d.totp_secret, code, now);
        if (step !== null && await this.deps.devices.useTotpStep(d.id, step)) { how = { outcome: 'totp', device: d.id }; break; }
      }
    } else if (await this.deps.codes.spend(c.user_id, code)) {
      how = { outcome: 'recovery_code', device: null };
    }
    if (how) {
      if (!await this.deps.challenges.transition(c.id, 'pending', 'released', how.outcome, how.device, now)) return this.verify(c.id);
      await this.deps.signIns?.secondFactorPassed(c.user_id, how.outcome);
      this.deps.bus.publish(c.user_id);
      this.deps.events.audit({
        action: 'auth.challenge.approved', user_id: c.user_id, resource_type: 'login_challenge', resource_id: c.id,
        detail: { challenge_id: c.id, method: how.outcome === 'totp' ? 'totp' : 'recovery_code', device_id: how.device },
      });
      return { status: 'approved', user_id: c.user_id };
    }
    const failures = await this.deps.challenges.addCodeFailure(c.id);
    this.deps.events.audit({
      action: 'auth.challenge.code_failed', user_id: c.user_id, resource_type: 'login_challenge', resource_id: c.id,
      detail: { challenge_id: c.id, failures },
    });
    if (failures >= CODE_FAILURES_MAX && await this.deps.challenges.transition(c.id, 'pending', 'denied', 'codes_exhausted', null, now)) {
      this.deps.bus.publish(c.user_id);
      this.deps.events.audit({
        action: 'auth.challenge.denied', user_id: c.user_id, resource_type: 'login_challenge', resource_id: c.id,
        detail: { challenge_id: c.id, reason: 'codes_exhausted' },
      });
    }
    throw codeInvalid();
  }

  /** 429 when the user already had `THROTTLE_MAX` challenges inside the window. */
  private async throttle(userId: string, now: number): Promise<void> {
    const since = now - THROTTLE_WINDOW_MS;
    if (await this.deps.challenges.countSince(userId, since) < THROTTLE_MAX) return;
    const oldest = (await this.deps.challenges.oldestSince(userId, since)) ?? now;
    const retry = Math.max(1, Math.ceil((oldest + THROTTLE_WINDOW_MS - now) / 1000));
    throw new DomainError('challenge_throttled', 'too many sign-in requests for this account; wait before trying again', { headers: { 'retry-after': String(retry) } });
  }

  private async methodsOf(user: UserRecord): Promise<{ enrolled: boolean; enforced: boolean; methods: ChallengeMethod[] }> {
    const enrolled = await this.deps.devices.pairedCount(user.id) > 0;
    const enforced = await this.deps.policy.enforcedFor(user);
    const methods: ChallengeMethod[] = enrolled ? ['push', 'totp'] : ['enroll'];
    if ((await this.deps.codes.status(user.id)).remaining > 0) methods.push('recovery_code');
    return { enrolled, enforced, methods };
  }
}
