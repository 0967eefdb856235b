/**
 * What the embedded IdP says about an account (issue 15 item 1; spec "Principal"): the claims of
 * ID tokens and userinfo (`findAccount`), and the extra claims of user access tokens
 * (`extraTokenClaims`): `email`, `name`, `realm_access.roles` (account roles only, as TokenService),
 * `groups` (directory groups), `auth_method` (`password` | `upstream_oidc`), `upstream_iss`,
 * `upstream_sub`, `upstream_preferred_username` when brokered, and `sid` (the grant id: one
 * sign-in, its refresh rotations included).
 *
 * How the account signed in is kept per grant (`IdpLoginContext`, written by `finishLogin` and the
 * password grant), so every token of the sign-in, refreshed ones included, carries it. The context
 * also keeps a digest of the account's password hash at sign-in: once the password changes (or the
 * account is disabled), the grant's codes and refresh tokens stop working, as the auth service's own
 * refresh tokens do (`TokenService.revokeUser`).
 */
import type { Awaitable } from '../../../shared/db/async-store.js';
import { createHash } from 'node:crypto';
import type { UserRecord, UserStore } from '../domain/ports.js';
import { tokenRoles } from '../domain/roles.js';
import type { IdpModelStore } from './model-store.js';

/** How an account signed in at the IdP (stored per grant). */
export interface IdpLoginContext {
  auth_method: 'password' | 'upstream_oidc';
  upstream_iss?: string;
  upstream_sub?: string;
  upstream_preferred_username?: string;
}

/** What is stored per grant: the login context and the credential digest at sign-in. */
interface StoredContext extends IdpLoginContext {
  /** sha256 (base64url) of the account's password hash at sign-in ('' hashed when it has none). */
  credential: string;
}

function credentialDigest(user: UserRecord): string {
  return createHash('sha256').update(user.password_hash ?? '', 'utf8').digest('base64url');
}

/** Model name of the login contexts in `idp_models` (id = grant id). */
const LOGIN_CONTEXT_MODEL = 'LoginContext';

/** Dependencies of `IdpClaims`. */
export interface IdpClaimsDeps {
  users: Pick<UserStore, 'byId'>;
  models: Pick<IdpModelStore, 'upsert' | 'find'>;
  /** The `groups` claim of an account (its directory groups). */
  groupsOf: (userId: string) => Awaitable<string[]>;
  clock: () => number;
}

/** Claims of accounts and user tokens. */
export class IdpClaims {
  constructor(private readonly deps: IdpClaimsDeps) {}

  /**
   * The account `id` when it may receive tokens (exists, not disabled), else null. With `grantId`
   * (a code or refresh token of that grant is being redeemed): also null when the account's password
   * changed since the grant's sign-in.
   */
  async account(id: string, grantId?: string): Promise<UserRecord | null> {
    const user = await this.deps.users.byId(id);
    if (!user || user.disabled) return null;
    if (grantId) {
      const ctx = await this.context(grantId);
      if (ctx && ctx.credential !== credentialDigest(user)) return null;
    }
    return user;
  }

  /** True when account `id` exists and is disabled (a refused refresh answers `account_disabled`). */
  async isDisabled(id: string): Promise<boolean> {
    return (await this.deps.users.byId(id))?.disabled === true;
  }

  private async context(grantId: string): Promise<StoredContext | null> {
    const row = await this.deps.models.find(LOGIN_CONTEXT_MODEL, grantId, this.deps.clock());
    return row ? JSON.parse(row.payload) as StoredContext : null;
  }

  /** ID-token / userinfo claims of `user` (filtered by scope by oidc-provider). */
  async idClaims(user: UserRecord): Promise<Record<string, unknown>> {
    return {
      sub: user.id, email: user.email, email_verified: false, name: user.display_name,
      realm_access: { roles: tokenRoles(user.roles) }, groups: await this.deps.groupsOf(user.id),
    };
  }

  /** Remember how account `accountId` signed in for grant `grantId`, for `ttlSeconds` (the grant's lifetime). */
  async remember(grantId: string, accountId: string, ctx: IdpLoginContext, ttlSeconds: number): Promise<void> {
    const user = await this.deps.users.byId(accountId);
    const stored: StoredContext = { ...ctx, credential: user ? credentialDigest(user) : '' };
    await this.deps.models.upsert({
      model: LOGIN_CONTEXT_MODEL, id: grantId, payload: JSON.stringify(stored), grant_id: grantId, uid: null, user_code: null,
      expires_at: this.deps.clock() + ttlSeconds * 1000, consumed_at: null,
    });
  }

  /**
   * The extra claims of a user access token of `accountId` in grant `grantId`; undefined when the
   * account is gone or disabled (oidc-provider then refuses to issue, since `findAccount` fails first).
   */
  async tokenClaims(accountId: string, grantId: string | undefined): Promise<Record<string, unknown> | undefined> {
    const user = await this.account(accountId, grantId);
    if (!user) return undefined;
    const how: IdpLoginContext = (grantId ? await this.context(grantId) : null) ?? { auth_method: 'password' };
    const claims: Record<string, unknown> = {
      email: user.email, name: user.display_name,
      realm_access: { roles: tokenRoles(user.roles) }, groups: await this.deps.groupsOf(user.id),
      auth_method: how.auth_method,
    };
    if (how.upstream_iss !== undefined) claims.upstream_iss = how.upstream_iss;
    if (how.upstream_sub !== undefined) claims.upstream_sub = how.upstream_sub;
    if (how.upstream_preferred_username !== undefined) claims.upstream_preferred_username = how.upstream_preferred_username;
    if (grantId) claims.sid = grantId;
    return claims;
  }
}
