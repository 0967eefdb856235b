/**
 * The device channel (issue 14 item 5: "Delivery without a push vendor"; docs/mobile-2fa.md): how
 * a paired phone learns of login challenges over the local network. Each request carries a device
 * proof (`X-Device-Proof`, or `?proof=` for EventSource) bound to `GET /dirauth/pair/challenges`;
 * the proof's `exp` (at most 2 minutes away) bounds how long the answer may stay open, so a stolen
 * proof is worth one short window at most, once (its jti is remembered).
 *
 * Three ways to ask, all answering the pending challenges of the device's user: at once; a long
 * poll (`wait` seconds, answering as soon as one is pending); a stream (new challenges as they
 * come, until the proof expires). New challenges wake waiters through the `ChallengeBus`; the store
 * is also re-read every `RECHECK_MS`, so a challenge created by another process is seen too.
 */
import { PAIR_CHALLENGES_PATH, type ChallengeItem } from '../contracts.js';
import type { ChallengeAnswerService } from './challenge-answers.js';
import type { ChallengeBus } from './challenge-bus.js';
import type { DeviceRecord } from './device-ports.js';
import { proofInvalid, type DeviceProofVerifier } from './device-proofs.js';
import type { Clock } from './ports.js';

/** How often a waiting request re-reads the store, ms. */
export const RECHECK_MS = 2000;

/** Dependencies of `DeviceChannel`. */
export interface DeviceChannelDeps {
  proofs: DeviceProofVerifier;
  answers: ChallengeAnswerService;
  bus: ChallengeBus;
  clock: Clock;
}

/** An authenticated channel request: the device and until when (Unix ms) the proof lets it stay open. */
export interface ChannelSession {
  device: DeviceRecord;
  until: number;
}

/** Serves the device channel. */
export class DeviceChannel {
  constructor(private readonly deps: DeviceChannelDeps) {}

  /**
   * Check the request's device proof (`GET /dirauth/pair/challenges`).
   * @throws DomainError `device_proof_invalid` (also: none given), `device_revoked`, `device_proof_replayed`.
   */
  async open(proof: string | undefined): Promise<ChannelSession> {
    if (!proof) throw proofInvalid('send X-Device-Proof (or ?proof= for EventSource)');
    const { device, claims } = await this.deps.proofs.proof(proof, 'GET', PAIR_CHALLENGES_PATH);
    return { device, until: claims.exp * 1000 };
  }

  /** The pending challenges now. */
  async list(s: ChannelSession): Promise<ChallengeItem[]> {
    return this.deps.answers.pendingFor(s.device);
  }

  /**
   * Long poll: the pending challenges as soon as there is one, or (possibly empty) when `waitMs`
   * or the proof's lifetime ends, or `signal` aborts.
   */
  async wait(s: ChannelSession, waitMs: number, signal?: AbortSignal): Promise<ChallengeItem[]> {
    const first = await this.list(s);
    const budget = Math.min(waitMs, s.until - this.deps.clock());
    if (first.length || budget <= 0 || signal?.aborted) return first;
    return new Promise((resolve) => {
      let finished = false;
      const done = (): void => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        clearInterval(recheck);
        unsubscribe();
        signal?.removeEventListener('abort', done);
        this.list(s).then(resolve, () => resolve([]));
      };
      const check = (): void => {
        this.list(s).then((items) => { if (items.length) done(); }, () => undefined);
      };
      const timer = setTimeout(done, budget);
      const recheck = setInterval(check, RECHECK_MS);
      const unsubscribe = this.deps.bus.subscribe(s.device.user_id, check);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * Stream: `send` each pending challenge once (those pending now first), until `stop()` or the
   * proof's end, when `end` is called once.
   * @returns stop (idempotent; does not call `end`).
   */
  watch(s: ChannelSession, send: (item: ChallengeItem) => void, end: () => void): () => void {
    const sent = new Set<string>();
    let stopped = false;
    const push = (): void => {
      if (stopped) return;
      // The listing is awaited; the loop after it is synchronous, so overlapping pushes never send twice.
      this.list(s).then((items) => {
        if (stopped) return;
        for (const item of items) {
          if (sent.has(item.challenge_id)) continue;
          sent.add(item.challenge_id);
          send(item);
        }
      }, () => undefined);
    };
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      clearInterval(recheck);
      unsubscribe();
    };
    const unsubscribe = this.deps.bus.subscribe(s.device.user_id, push);
    const recheck = setInterval(push, RECHECK_MS);
    const timer = setTimeout(() => { stop(); end(); }, Math.max(0, s.until - this.deps.clock()));
    push();
    return stop;
  }
}
