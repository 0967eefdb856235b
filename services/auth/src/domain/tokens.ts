/**
 * Access and refresh tokens (spec: "Bearer tokens and trusted issuers", "Principal"; DESIGN.md "Identity").
 *
 * Access tokens are ES256 JWTs whose claims the gateway turns into the stamped principal. Refresh
 * tokens are opaque, stored as sha256, single use and grouped in families (one family per login,
 * the access token's `sid`): rotating spends the presented token and issues the next one in the same
 * family; presenting a spent token again means it leaked, so the whole family is revoked.
 */
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, type importJWK, type JWK } from 'jose';
import { monotonicFactory } from 'ulid';
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { AccessTokenClaims, TokenResponse } from '../contracts.js';
import type { Awaitable } from '../../../shared/db/async-store.js';
import type { Clock, RefreshTokenStore, RevocationStore, Transactor, UserRecord, UserStore } from './ports.js';
import { tokenRoles } from './roles.js';

/** The service's ES256 signing key. */
export interface SigningKey {
  /** JWK thumbprint (RFC 7638) of the public key. */
  kid: string;
  /** Private key usable by `jose`. */
  privateKey: Awaited<ReturnType<typeof importJWK>>;
  /** Public JWK as published in the JWKS (`kty, crv, x, y, kid, alg, use`). */
  publicJwk: JWK;
}

/** Token settings from `AuthConfig`. */
export interface TokenSettings {
  /** `iss` of access tokens: `{public_url}/auth`. */
  issuer: string;
  /** `aud` of access tokens: `svc-frontend`. */
  audience: string;
  /** Seconds. */
  accessTokenTtlSeconds: number;
  /** Seconds; each rotation starts a new lifetime. */
  refreshTokenTtlSeconds: number;
}

/** Dependencies of `TokenService`. */
export interface TokenDeps {
  key: SigningKey;
  settings: TokenSettings;
  users: UserStore;
  refresh: RefreshTokenStore;
  tx: Transactor;
  clock: Clock;
  /** Told when a spent refresh token comes back (ids only, never the token). */
  onReuse?: (info: { user_id: string; family_id: string }) => void;
  /**
   * Where revocations are recorded for the gateway's revocation list (issue 11 item 9), so the
   * access tokens already issued stop working too; absent: only refresh tokens are revoked.
   */
  revocations?: RevocationStore;
  /** The `groups` claim of a user's tokens (issue 15 item 3: their directory groups); absent: `[]`. */
  groupsOf?: (userId: string) => Awaitable<string[]>;
}

const newId = monotonicFactory();

/** sha256 hex of a secret string (refresh tokens, handoff ids). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

type Rotation =
  | { kind: 'ok'; user: UserRecord; familyId: string; refreshToken: string }
  | { kind: 'invalid' | 'reused' | 'disabled' };

/** Mints and rotates tokens. */
export class TokenService {
  constructor(private readonly deps: TokenDeps) {}

  /**
   * Issue a token pair for `user` in a new refresh family (a new session).
   * @returns the RFC 6749 §5.1 token response.
   */
  async issue(user: UserRecord): Promise<TokenResponse> {
    const familyId = newId();
    const refreshToken = await this.deps.tx(() => this.newRefresh(user.id, familyId, this.deps.clock()));
    return this.respond(user, familyId, refreshToken);
  }

  /**
   * Spend `presented` and issue the next pair of its family.
   * @throws DomainError `refresh_token_invalid` (unknown, expired, revoked),
   *   `refresh_token_reused` (already spent: the family is revoked),
   *   `account_disabled`.
   */
  async rotate(presented: string): Promise<TokenResponse> {
    const hash = sha256Hex(presented);
    const now = this.deps.clock();
    const r = await this.deps.tx(async (): Promise<Rotation> => {
      const rec = await this.deps.refresh.byHash(hash);
      if (!rec) return { kind: 'invalid' };
      const user = await this.deps.users.byId(rec.user_id);
      if (!user) return { kind: 'invalid' };
      if (user.disabled) return { kind: 'disabled' };
      if (rec.revoked_at !== null) return { kind: 'invalid' };
      if (rec.used_at !== null) {
        await this.deps.refresh.revokeFamily(rec.family_id, now);
        await this.deps.revocations?.record(rec.user_id, rec.family_id, now);
        this.deps.onReuse?.({ user_id: rec.user_id, family_id: rec.family_id });
        return { kind: 'reused' };
      }
      if (rec.expires_at <= now) return { kind: 'invalid' };
      if (!await this.deps.refresh.markUsed(rec.jti, now)) return { kind: 'invalid' };
      return { kind: 'ok', user, familyId: rec.family_id, refreshToken: await this.newRefresh(user.id, rec.family_id, now) };
    });
    switch (r.kind) {
      case 'ok': return this.respond(r.user, r.familyId, r.refreshToken);
      case 'disabled': throw accountDisabled();
      case 'reused': throw new DomainError('refresh_token_reused', 'refresh token was already used; the session has been revoked, log in again');
      default: throw new DomainError('refresh_token_invalid', 'refresh token is invalid, expired or revoked');
    }
  }

  /**
   * Revoke every refresh family of a user (disable, password change) and record the revocation, so
   * the gateway refuses the user's access tokens issued until now. @returns refresh tokens revoked.
   */
  async revokeUser(userId: string): Promise<number> {
    const now = this.deps.clock();
    return this.deps.tx(async () => {
      await this.deps.revocations?.record(userId, null, now);
      return this.deps.refresh.revokeUser(userId, now);
    });
  }

  /**
   * Sign an access token for `user` in session `sid`; `realm_access.roles` keeps only the account's
   * roles within `ACCOUNT_ROLES` (a stored `service-account` is dropped, issue 11 item 1).
   * @param mobileDeviceId set for the access token of a paired device (issue 14): `auth_method`
   *   `mobile`, `did` and `sid` the device id (so revoking the device revokes its session).
   * @returns the compact JWS and its claims.
   */
  async accessToken(user: UserRecord, sid: string, mobileDeviceId?: string): Promise<{ token: string; claims: AccessTokenClaims }> {
    const { settings, key } = this.deps;
    const iat = Math.floor(this.deps.clock() / 1000);
    const claims: AccessTokenClaims = {
      iss: settings.issuer,
      aud: settings.audience,
      sub: user.id,
      email: user.email,
      name: user.display_name,
      realm_access: { roles: tokenRoles(user.roles) },
      groups: (await this.deps.groupsOf?.(user.id)) ?? [],
      auth_method: mobileDeviceId === undefined ? 'password' : 'mobile',
      sid,
      iat,
      exp: iat + settings.accessTokenTtlSeconds,
      jti: newId(),
    };
    if (mobileDeviceId !== undefined) claims.did = mobileDeviceId;
    const token = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
      .sign(key.privateKey);
    return { token, claims };
  }

  private async newRefresh(userId: string, familyId: string, now: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.deps.refresh.insert({
      jti: newId(), token_hash: sha256Hex(token), family_id: familyId, user_id: userId,
      issued_at: now, expires_at: now + this.deps.settings.refreshTokenTtlSeconds * 1000, used_at: null, revoked_at: null,
    });
    return token;
  }

  private async respond(user: UserRecord, familyId: string, refreshToken: string): Promise<TokenResponse> {
    const { token } = await this.accessToken(user, familyId);
    return { access_token: token, refresh_token: refreshToken, token_type: 'Bearer', expires_in: this.deps.settings.accessTokenTtlSeconds };
  }
}

/** 403 `account_disabled`. */
export function accountDisabled(): DomainError {
  return new DomainError('account_disabled', 'this account is disabled');
}
