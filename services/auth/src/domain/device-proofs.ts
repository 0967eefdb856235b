/**
 * Device proofs and signed answers (issue 14 items 3 and 5; /work/2fa-brief.md "Crypto objects" 3
 * and 4; docs/mobile-2fa.md "Replay defences"). Modelled on DPoP (RFC 9449): a short-lived JWS
 * signed by the paired device's key, bound to the HTTP method and path (`htm`, `htu`) and to this
 * workstation (`aud`), with a unique `jti` remembered until the proof's `exp`.
 *
 * Checks, in order: compact JWS with header `alg: ES256`, the expected `typ`, `kid` = a known device
 * id (else `device_proof_invalid`); the signature against that device's key, `exp` in the future,
 * `exp - iat` at most 120 s, `iat` at most 30 s ahead, `sub` = the device, the binding claims
 * (else `device_proof_invalid`); the device still paired (else `device_revoked`); a `jti` of at least
 * 16 characters never seen before (else `device_proof_replayed`). An accepted proof updates the
 * device's `last_seen_at`.
 */
import { decodeProtectedHeader, errors, importJWK, jwtVerify, type JWTPayload } from 'jose';
import { DomainError } from '../../../shared/kit/domain-error.js';
import {
  ANSWER_DECISIONS, ANSWER_TYP, DEVICE_PROOF_TYP, PROOF_IAT_SKEW_SECONDS, PROOF_JTI_MIN, PROOF_MAX_LIFETIME_SECONDS,
  type AnswerClaims, type AnswerDecision, type DeviceProofClaims,
} from '../contracts.js';
import type { DeviceRecord, DeviceStore, ProofJtiStore } from './device-ports.js';
import type { Clock } from './ports.js';

/** Dependencies of `DeviceProofVerifier`. */
export interface DeviceProofDeps {
  devices: DeviceStore;
  jtis: ProofJtiStore;
  clock: Clock;
  /** `aud` of device proofs: `{public_url}/dirauth/pair`. */
  audience: string;
}

/** 401 `device_proof_invalid` with a short reason (never a key or a token). */
export function proofInvalid(reason: string): DomainError {
  return new DomainError('device_proof_invalid', `device proof refused: ${reason}`);
}

/** What a verified JWS gives: the device and the claims. */
export interface Verified<C> {
  device: DeviceRecord;
  claims: C;
}

/** Verifies device proofs and answers. */
export class DeviceProofVerifier {
  constructor(private readonly deps: DeviceProofDeps) {}

  /**
   * Verify a device proof for a request `htm htu` (method, path without query).
   * @throws DomainError `device_proof_invalid`, `device_revoked`, `device_proof_replayed`.
   */
  async proof(jws: string, htm: string, htu: string): Promise<Verified<DeviceProofClaims>> {
    const { device, payload } = await this.verify(jws, DEVICE_PROOF_TYP);
    if (payload.aud !== this.deps.audience) throw proofInvalid('aud is not this workstation');
    if (payload.htm !== htm || payload.htu !== htu) throw proofInvalid('htm/htu do not match this request');
    await this.accept(device, payload);
    return { device, claims: payload as unknown as DeviceProofClaims };
  }

  /**
   * Verify a signed answer to challenge `challengeId`.
   * @throws DomainError `device_proof_invalid` (also: wrong challenge, unknown decision, approve
   *   without a number), `device_revoked`, `device_proof_replayed`.
   */
  async answer(jws: string, challengeId: string): Promise<Verified<AnswerClaims>> {
    const { device, payload } = await this.verify(jws, ANSWER_TYP);
    if (payload.challenge_id !== challengeId) throw proofInvalid('the answer is for another challenge');
    const decision = payload.decision;
    if (typeof decision !== 'string' || !(ANSWER_DECISIONS as readonly string[]).includes(decision)) throw proofInvalid('decision must be approve, deny or report');
    if (decision === 'approve' && !Number.isInteger(payload.number)) throw proofInvalid('approve needs the chosen number');
    await this.accept(device, payload);
    return { device, claims: { ...(payload as unknown as AnswerClaims), decision: decision as AnswerDecision } };
  }

  private async verify(jws: string, typ: string): Promise<{ device: DeviceRecord; payload: JWTPayload }> {
    let kid: unknown;
    try {
      const header = decodeProtectedHeader(jws);
      if (header.alg !== 'ES256' || header.typ !== typ) throw proofInvalid(`header must be alg ES256, typ ${typ}`);
      kid = header.kid;
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw proofInvalid('not a compact JWS');
    }
    if (typeof kid !== 'string' || kid.length === 0 || kid.length > 64) throw proofInvalid('kid must name the device');
    const device = await this.deps.devices.byId(kid);
    if (!device) throw proofInvalid('unknown device');
    let payload: JWTPayload;
    try {
      const key = await importJWK({ ...device.public_jwk, alg: 'ES256' }, 'ES256');
      ({ payload } = await jwtVerify(jws, key, {
        algorithms: ['ES256'], typ, subject: device.id, requiredClaims: ['exp', 'iat', 'jti'],
        currentDate: new Date(this.deps.clock()),
      }));
    } catch (err) {
      if (err instanceof errors.JOSEError) throw proofInvalid(err instanceof errors.JWTExpired ? 'expired' : 'signature or claims invalid');
      throw err;
    }
    const now = Math.floor(this.deps.clock() / 1000);
    const iat = payload.iat!;
    const exp = payload.exp!;
    if (exp - iat > PROOF_MAX_LIFETIME_SECONDS) throw proofInvalid(`exp may be at most ${PROOF_MAX_LIFETIME_SECONDS} s after iat`);
    if (iat > now + PROOF_IAT_SKEW_SECONDS) throw proofInvalid('iat is in the future');
    if (typeof payload.jti !== 'string' || payload.jti.length < PROOF_JTI_MIN || payload.jti.length > 128) {
      throw proofInvalid(`jti must be ${PROOF_JTI_MIN} to 128 characters`);
    }
    if (device.state !== 'paired') throw new DomainError('device_revoked', 'this device was revoked; pair it again');
    return { device, payload };
  }

  /** Refuse a replayed jti, remember this one until its exp, and note the device was seen. */
  private async accept(device: DeviceRecord, payload: JWTPayload): Promise<void> {
    if (!await this.deps.jtis.remember(device.id, payload.jti!, payload.exp! * 1000)) {
      throw new DomainError('device_proof_replayed', 'this device proof was already used; sign a fresh one');
    }
    await this.deps.devices.touch(device.id, this.deps.clock());
  }
}
