/**
 * Pairing a phone (issue 14 item 1; /work/2fa-brief.md "Crypto objects" 1, 2, 5; docs/mobile-2fa.md
 * "Pairing"). Modelled on the privacyIDEA push token's two-step enrollment and Keycloak push-MFA's
 * signed enrollment token.
 *
 * 1. A signed-in user asks for a pairing: an enrollment token (JWS by the auth key, header typ
 *    `svc-enroll+jwt`, claims `{iss, aud: svc-device-enrollment, sub, jti: enrollment id, nonce, iat,
 *    exp: iat + 120}`) in an enrollment URL `{public_url}/m/#pair?token=...&fp=<TLS fingerprint>`.
 *    At most 5 pending pairings per user (429 `enrollment_limit`).
 * 2. The phone makes its own P-256 key and sends the token with an enrollment proof signed by that
 *    key (header typ `svc-device-enroll+jwt` with the public `jwk`; claims echo `enrollment_id` and
 *    `nonce`). The pairing is spent once (409 `enrollment_used` for a second use or a replay), the
 *    device stored with its public key and a new TOTP secret, and the phone gets a mobile token pair.
 *
 * Errors: 401 `enrollment_token_invalid` (malformed, bad signature, other issuer/audience/typ, no such
 * pairing), 410 `enrollment_expired`, 409 `enrollment_used`, 401 `device_proof_invalid`.
 */
import { randomBytes } from 'node:crypto';
import { EmbeddedJWK, SignJWT, calculateJwkThumbprint, errors, importJWK, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { monotonicFactory } from 'ulid';
import { DomainError } from '../../../shared/kit/domain-error.js';
import {
  DEVICE_NAME_MAX, ENROLLMENT_AUDIENCE, ENROLLMENT_PENDING_MAX, ENROLLMENT_PROOF_TYP, ENROLLMENT_TOKEN_TYP, ENROLLMENT_TTL_SECONDS,
  PROOF_IAT_SKEW_SECONDS, PROOF_MAX_LIFETIME_SECONDS, TOTP_PARAMS, type EnrollResult, type PairingCreated, type PairingStatus,
} from '../contracts.js';
import type { DeviceStore, EnrollmentRecord, EnrollmentStore, SecurityEvents } from './device-ports.js';
import { proofInvalid } from './device-proofs.js';
import type { MobileTokenService } from './mobile-tokens.js';
import type { Clock, Transactor, UserStore } from './ports.js';
import { accountDisabled, type SigningKey } from './tokens.js';
import { newTotpSecret } from './totp.js';
import type { SignInLog } from './sign-in-log.js';

/** Dependencies of `EnrollmentService`. */
export interface EnrollmentDeps {
  key: SigningKey;
  enrollments: EnrollmentStore;
  devices: DeviceStore;
  users: UserStore;
  mobile: MobileTokenService;
  events: SecurityEvents;
  tx: Transactor;
  clock: Clock;
  settings: { issuer: string; publicUrl: string };
  /** SHA-256 of the gateway's TLS certificate (lowercase hex), or null when it serves plain HTTP. */
  fingerprint: () => string | null;
  /** The sign-in log (issue 15 item 5): a paired phone's first tokens are a `mobile` sign-in. */
  signIns?: Pick<SignInLog, 'record'>;
}

/** Name of a device whose proof named none. */
export const DEFAULT_DEVICE_NAME = 'Phone';

const newId = monotonicFactory();

function tokenInvalid(): DomainError {
  return new DomainError('enrollment_token_invalid', 'the pairing code is not valid; show a new QR code');
}
function expired(): DomainError {
  return new DomainError('enrollment_expired', 'the pairing code expired; show a new QR code');
}
function used(): DomainError {
  return new DomainError('enrollment_used', 'the pairing code was already used; show a new QR code');
}

/** The enrollment URL of `token` on `publicUrl`, with the TLS fingerprint `fp` (empty for plain HTTP). */
export function enrollmentUrl(publicUrl: string, token: string, fp: string): string {
  return `${publicUrl}/m/#pair?${new URLSearchParams({ token, fp }).toString()}`;
}

/** Opens pairings and enrolls devices. */
export class EnrollmentService {
  private publicKey: Promise<Awaited<ReturnType<typeof importJWK>>> | null = null;

  constructor(private readonly deps: EnrollmentDeps) {}

  /**
   * Open a pairing for `userId` (from the account page, or with `challengeId` for an enforced user's
   * login challenge, which is not counted against the limit).
   * @throws DomainError `forbidden` (not a local account), `account_disabled`, `enrollment_limit`.
   */
  async open(userId: string, challengeId: string | null = null): Promise<PairingCreated> {
    const { users, enrollments, clock, settings, key } = this.deps;
    const user = await users.byId(userId);
    if (!user) throw new DomainError('forbidden', 'only local accounts can pair a phone');
    if (user.disabled) throw accountDisabled();
    const now = clock();
    if (challengeId === null && await enrollments.pendingCount(userId, now) >= ENROLLMENT_PENDING_MAX) {
      throw new DomainError('enrollment_limit', `at most ${ENROLLMENT_PENDING_MAX} pairings may wait at once; use one or wait 2 minutes`);
    }
    const id = newId();
    const nonce = randomBytes(16).toString('base64url');
    const iat = Math.floor(now / 1000);
    const record: EnrollmentRecord = {
      id, user_id: userId, nonce, challenge_id: challengeId, created_at: now,
      expires_at: (iat + ENROLLMENT_TTL_SECONDS) * 1000, used_at: null, device_id: null,
    };
    const token = await new SignJWT({ nonce })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: ENROLLMENT_TOKEN_TYP })
      .setIssuer(settings.issuer).setAudience(ENROLLMENT_AUDIENCE).setSubject(userId).setJti(id)
      .setIssuedAt(iat).setExpirationTime(iat + ENROLLMENT_TTL_SECONDS)
      .sign(key.privateKey);
    await enrollments.insert(record);
    const fp = settings.publicUrl.startsWith('https:') ? (this.deps.fingerprint() ?? '') : '';
    return { enrollment_id: id, enrollment_url: enrollmentUrl(settings.publicUrl, token, fp), expires_at: new Date(record.expires_at).toISOString() };
  }

  /** The state of a pairing of `userId`. @throws DomainError `enrollment_not_found` (unknown, or another user's). */
  async status(userId: string, enrollmentId: string): Promise<PairingStatus> {
    const e = await this.deps.enrollments.byId(enrollmentId);
    if (!e || e.user_id !== userId) throw new DomainError('enrollment_not_found', 'no such pairing');
    const state = e.device_id !== null ? 'paired' : e.expires_at <= this.deps.clock() || e.used_at !== null ? 'expired' : 'pending';
    return { enrollment_id: e.id, state, device_id: e.device_id };
  }

  /**
   * Enroll a device: check the token, then the proof, spend the pairing, store the device, mint its tokens.
   * @throws DomainError (see the file header), `account_disabled`.
   */
  async enroll(token: string, proof: string): Promise<EnrollResult> {
    const { enrollments, devices, users, mobile, tx, clock, settings } = this.deps;
    const pairing = await this.checkToken(token);
    const { jwk, name } = await this.checkProof(proof, pairing);
    const user = await users.byId(pairing.user_id);
    if (!user) throw tokenInvalid();
    if (user.disabled) throw accountDisabled();
    const thumbprint = await calculateJwkThumbprint(jwk, 'sha256');
    const deviceId = newId();
    const jti = mobile.newJti();
    const secret = newTotpSecret();
    const pair = await mobile.mint(user, deviceId, jti);
    const now = clock();
    await tx(async () => {
      if (!await enrollments.markUsed(pairing.id, now, deviceId)) throw used();
      const ok = await devices.insert({
        id: deviceId, user_id: user.id, name, public_jwk: jwk, jwk_thumbprint: thumbprint, totp_secret: secret, totp_last_step: null,
        current_refresh_jti: jti, state: 'paired', created_at: now, last_seen_at: now, revoked_at: null,
      });
      if (!ok) throw proofInvalid('this device key is already paired');
    });
    this.deps.events.audit({
      action: 'auth.device.paired', user_id: user.id, resource_type: 'device', resource_id: deviceId,
      detail: { device_id: deviceId, device_name: name, enrollment_id: pairing.id, jwk_thumbprint: thumbprint, during_login: pairing.challenge_id !== null },
    });
    this.deps.events.notify({
      user_id: user.id, kind: 'device_paired', title: `Phone "${name}" was paired`,
      body: 'It can now approve your sign-ins. If this was not you, revoke it in your account settings.',
      payload: { device_id: deviceId }, idempotency_key: `device_paired:${deviceId}`,
    });
    await this.deps.signIns?.record({ user_id: user.id, email: user.email, method: 'mobile', issuer: settings.issuer, client_id: null });
    return {
      device_id: deviceId, user: { id: user.id, email: user.email, name: user.display_name },
      ...pair, token_type: 'Bearer', totp: { secret, ...TOTP_PARAMS }, api_base: settings.publicUrl,
    };
  }

  /** Verify the enrollment token and find its unspent, unexpired pairing. */
  private async checkToken(token: string): Promise<EnrollmentRecord> {
    const { key, enrollments, clock, settings } = this.deps;
    this.publicKey ??= importJWK({ ...key.publicJwk, alg: 'ES256' }, 'ES256');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await this.publicKey, {
        algorithms: ['ES256'], issuer: settings.issuer, audience: ENROLLMENT_AUDIENCE, typ: ENROLLMENT_TOKEN_TYP,
        requiredClaims: ['sub', 'jti', 'exp'], currentDate: new Date(clock()),
      }));
    } catch (err) {
      if (err instanceof errors.JWTExpired) {
        // The signature was good (jose checks it first): a spent pairing answers "used" even when late.
        const late = typeof err.payload.jti === 'string' ? await enrollments.byId(err.payload.jti) : null;
        throw late?.used_at != null ? used() : expired();
      }
      if (err instanceof errors.JOSEError) throw tokenInvalid();
      throw err;
    }
    const pairing = await enrollments.byId(payload.jti!);
    if (!pairing || pairing.user_id !== payload.sub || pairing.nonce !== (payload as { nonce?: unknown }).nonce) throw tokenInvalid();
    if (pairing.used_at !== null) throw used();
    if (pairing.expires_at <= clock()) throw expired();
    return pairing;
  }

  /** Verify the enrollment proof against the pairing: the new key, and the device name. */
  private async checkProof(proof: string, pairing: EnrollmentRecord): Promise<{ jwk: { kty: string; crv: string; x: string; y: string }; name: string }> {
    let payload: JWTPayload;
    let header: { jwk?: JWK };
    try {
      ({ payload, protectedHeader: header } = await jwtVerify(proof, EmbeddedJWK, {
        algorithms: ['ES256'], typ: ENROLLMENT_PROOF_TYP, requiredClaims: ['iat', 'exp'], currentDate: new Date(this.deps.clock()),
      }));
    } catch (err) {
      if (err instanceof errors.JOSEError) throw proofInvalid(err instanceof errors.JWTExpired ? 'expired' : 'signature or claims invalid');
      throw err;
    }
    const claims = payload as JWTPayload & { enrollment_id?: unknown; nonce?: unknown; name?: unknown };
    if (claims.enrollment_id !== pairing.id || claims.nonce !== pairing.nonce) throw proofInvalid('enrollment id or nonce does not match');
    if (claims.exp! - claims.iat! > PROOF_MAX_LIFETIME_SECONDS) throw proofInvalid(`exp may be at most ${PROOF_MAX_LIFETIME_SECONDS} s after iat`);
    if (claims.iat! > Math.floor(this.deps.clock() / 1000) + PROOF_IAT_SKEW_SECONDS) throw proofInvalid('iat is in the future');
    const jwk = header.jwk;
    if (!jwk || jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string') {
      throw proofInvalid('the key must be a public P-256 JWK');
    }
    const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, DEVICE_NAME_MAX) : DEFAULT_DEVICE_NAME;
    return { jwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, name };
  }
}
