/**
 * Mobile tokens of paired devices (issue 14 item 2; spec "States and transitions", paired mobile
 * device; "Bearer tokens and trusted issuers": issuer `{public_url}/auth`).
 *
 * - access token: the user's normal access token (aud `svc-frontend`) with `auth_method: "mobile"`,
 *   `did` and `sid` = the device id;
 * - refresh token: a JWT `{iss, aud: "svc-device-refresh", sub, did, jti, iat, exp: 30 days}` signed
 *   by the auth key. The device row holds the one live `current_refresh_jti`.
 *
 * Refresh: the presented jti equal to the stored one rotates by compare-and-swap (two racing
 * refreshes cannot both win: the loser's swap finds the jti already replaced); any other jti
 * (including the loser of a race) is a replayed token, treated as compromise: the device is revoked,
 * nothing is issued (401 `refresh_token_reused`), the user is notified and the event audited.
 */
import { SignJWT, errors, importJWK, jwtVerify, type JWTPayload } from 'jose';
import { monotonicFactory } from 'ulid';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { DEVICE_REFRESH_AUDIENCE, MOBILE_REFRESH_TTL_SECONDS, type TokenResponse } from '../contracts.js';
import type { DeviceStore } from './device-ports.js';
import type { DeviceService } from './devices.js';
import type { Clock, Transactor, UserRecord, UserStore } from './ports.js';
import { accountDisabled, type SigningKey, type TokenService } from './tokens.js';

/** Dependencies of `MobileTokenService`. */
export interface MobileTokenDeps {
  key: SigningKey;
  tokens: TokenService;
  devices: DeviceStore;
  deviceService: DeviceService;
  users: UserStore;
  tx: Transactor;
  clock: Clock;
  settings: { issuer: string; accessTokenTtlSeconds: number };
}

const newId = monotonicFactory();

function refreshInvalid(): DomainError {
  return new DomainError('refresh_token_invalid', 'refresh token is invalid or expired');
}

/** Mints and rotates mobile token pairs. */
export class MobileTokenService {
  private publicKey: Promise<Awaited<ReturnType<typeof importJWK>>> | null = null;

  constructor(private readonly deps: MobileTokenDeps) {}

  /** A new refresh jti (ULID), to store on the device before its tokens are handed out. */
  newJti(): string {
    return newId();
  }

  /**
   * Sign a mobile token pair for `user` on `deviceId` whose refresh token has id `jti`.
   * @returns the RFC 6749 §5.1 token response.
   */
  async mint(user: UserRecord, deviceId: string, jti: string): Promise<TokenResponse> {
    const { key, settings, clock } = this.deps;
    const { token } = await this.deps.tokens.accessToken(user, deviceId, deviceId);
    const iat = Math.floor(clock() / 1000);
    const refresh = await new SignJWT({ did: deviceId })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
      .setIssuer(settings.issuer).setAudience(DEVICE_REFRESH_AUDIENCE).setSubject(user.id).setJti(jti)
      .setIssuedAt(iat).setExpirationTime(iat + MOBILE_REFRESH_TTL_SECONDS)
      .sign(key.privateKey);
    return { access_token: token, refresh_token: refresh, token_type: 'Bearer', expires_in: settings.accessTokenTtlSeconds };
  }

  /**
   * Rotate a mobile refresh token (see the file header).
   * @throws DomainError `refresh_token_invalid` (bad signature, issuer, audience, expired, unknown
   *   device), `device_revoked`, `account_disabled`, `refresh_token_reused` (the device is revoked now).
   */
  async refresh(presented: string): Promise<TokenResponse> {
    const claims = await this.verify(presented);
    const device = await this.deps.devices.byId(claims.did);
    if (!device || device.user_id !== claims.sub) throw refreshInvalid();
    if (device.state !== 'paired') throw new DomainError('device_revoked', 'this device was revoked; pair it again');
    const user = await this.deps.users.byId(device.user_id);
    if (!user) throw refreshInvalid();
    if (user.disabled) throw accountDisabled();
    const next = this.newJti();
    // Sign first, then swap in one statement (compare-and-swap): the swap alone decides who wins.
    const pair = await this.mint(user, device.id, next);
    if (await this.deps.devices.swapRefresh(device.id, claims.jti, next)) return pair;
    await this.deps.deviceService.revoke(device, device.user_id, 'refresh_reused');
    throw new DomainError('refresh_token_reused', 'this refresh token was already used; the device has been revoked, pair it again');
  }

  private async verify(token: string): Promise<{ sub: string; did: string; jti: string }> {
    this.publicKey ??= importJWK({ ...this.deps.key.publicJwk, alg: 'ES256' }, 'ES256');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await this.publicKey, {
        algorithms: ['ES256'], issuer: this.deps.settings.issuer, audience: DEVICE_REFRESH_AUDIENCE,
        requiredClaims: ['sub', 'jti', 'exp'], currentDate: new Date(this.deps.clock()),
      }));
    } catch (err) {
      if (err instanceof errors.JOSEError) throw refreshInvalid();
      throw err;
    }
    const did = (payload as { did?: unknown }).did;
    if (typeof did !== 'string' || typeof payload.sub !== 'string' || typeof payload.jti !== 'string') throw refreshInvalid();
    return { sub: payload.sub, did, jti: payload.jti };
  }
}
