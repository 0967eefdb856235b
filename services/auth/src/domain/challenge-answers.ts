/**
 * Login challenges, the phone's side (issue 14 items 3 and 5; /work/2fa-brief.md "Phone routes";
 * docs/mobile-2fa.md): the pending challenges of a device's user (who, from where, when, and three
 * numbers), and signed answers.
 *
 * An answer (`svc-device-answer+jwt`, verified by `DeviceProofVerifier.answer`) moves a pending
 * challenge once: `approve` with the browser's number -> approved; `approve` with another number
 * -> denied (`wrong_number`); `deny` -> denied; `report` ("this wasn't me") -> denied, the user is
 * notified (`login_reported`) and it is audited (`auth.challenge.reported`).
 * Errors: 401 `device_proof_invalid` / `device_revoked` / `device_proof_replayed`; 404
 * `challenge_not_found` (unknown, or another user's); 410 `challenge_expired`; 409 `challenge_answered`.
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { AnswerResult, ChallengeItem } from '../contracts.js';
import type { ChallengeBus } from './challenge-bus.js';
import { challengeExpired } from './challenges.js';
import type { ChallengeOutcome, ChallengeRecord, ChallengeStore, DeviceRecord, SecurityEvents } from './device-ports.js';
import type { DeviceProofVerifier } from './device-proofs.js';
import type { Clock, UserStore } from './ports.js';

/** Dependencies of `ChallengeAnswerService`. */
export interface ChallengeAnswerDeps {
  challenges: ChallengeStore;
  users: UserStore;
  proofs: DeviceProofVerifier;
  events: SecurityEvents;
  bus: ChallengeBus;
  clock: Clock;
}

/** Lists and answers challenges for paired devices. */
export class ChallengeAnswerService {
  constructor(private readonly deps: ChallengeAnswerDeps) {}

  /** The pending, unexpired challenges of `device`'s user, oldest first. */
  async pendingFor(device: DeviceRecord): Promise<ChallengeItem[]> {
    const user = await this.deps.users.byId(device.user_id);
    const who = { email: user?.email ?? '', name: user?.display_name ?? '' };
    return (await this.deps.challenges.pendingOf(device.user_id, this.deps.clock())).map((c) => ({
      challenge_id: c.id, numbers: [...c.numbers], user: who, client_ip: c.client_ip, user_agent: c.user_agent,
      created_at: new Date(c.created_at).toISOString(), expires_at: new Date(c.expires_at).toISOString(),
    }));
  }

  /**
   * Apply a signed answer to `challengeId` (see the file header).
   * @throws DomainError as listed in the file header.
   */
  async answer(challengeId: string, jws: string): Promise<AnswerResult> {
    const { device, claims } = await this.deps.proofs.answer(jws, challengeId);
    const c = await this.deps.challenges.byId(challengeId);
    if (!c || c.user_id !== device.user_id) throw new DomainError('challenge_not_found', 'no such sign-in request');
    const now = this.deps.clock();
    await this.assertOpen(c, now);
    let outcome: ChallengeOutcome;
    if (claims.decision === 'approve') outcome = claims.number === c.number_match ? 'approve' : 'wrong_number';
    else outcome = claims.decision;
    const to = outcome === 'approve' ? 'approved' : 'denied';
    if (!await this.deps.challenges.transition(c.id, 'pending', to, outcome, device.id, now)) {
      await this.assertOpen((await this.deps.challenges.byId(c.id)) ?? { ...c, state: 'expired' }, now);
      throw answered();
    }
    this.deps.bus.publish(c.user_id);
    this.record(c, device, outcome);
    return { challenge_id: c.id, status: to };
  }

  /** 410 for an expired challenge, 409 for an answered one; nothing for a pending one. */
  private async assertOpen(c: ChallengeRecord, now: number): Promise<void> {
    if (c.state === 'expired') throw challengeExpired();
    if (c.state !== 'pending') throw answered();
    if (c.expires_at <= now) {
      if (await this.deps.challenges.transition(c.id, 'pending', 'expired', 'timeout', null, now)) this.deps.bus.publish(c.user_id);
      throw challengeExpired();
    }
  }

  private record(c: ChallengeRecord, device: DeviceRecord, outcome: ChallengeOutcome): void {
    const base = { user_id: c.user_id, resource_type: 'login_challenge' as const, resource_id: c.id };
    const detail = { challenge_id: c.id, device_id: device.id, client_ip: c.client_ip };
    if (outcome === 'approve') {
      this.deps.events.audit({ ...base, action: 'auth.challenge.approved', detail: { ...detail, method: 'push' } });
      return;
    }
    if (outcome === 'report') {
      this.deps.events.audit({ ...base, action: 'auth.challenge.reported', detail });
      this.deps.events.notify({
        user_id: c.user_id, kind: 'login_reported', title: 'A sign-in you did not start was blocked',
        body: `Someone with your password tried to sign in from ${c.client_ip || 'an unknown address'}. Change your password now.`,
        payload: { challenge_id: c.id, device_id: device.id, client_ip: c.client_ip }, idempotency_key: `login_reported:${c.id}`,
      });
    }
    this.deps.events.audit({ ...base, action: 'auth.challenge.denied', detail: { ...detail, reason: outcome } });
  }
}

function answered(): DomainError {
  return new DomainError('challenge_answered', 'this sign-in request was already answered');
}
