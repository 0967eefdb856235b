/**
 * The `password` grant of the embedded IdP (issue 15 item 1): only the confidential client
 * `svc-web-password` may use it (oidc-provider refuses every other client with `unauthorized_client`,
 * `svc-frontend` included), server-side from the gateway. The password is checked by the auth
 * service's LoginService (local accounts, then the directory; the same throttle, keyed by the client
 * address of the gateway's hop stamp), then the grant issues the same tokens as a code flow: a JWT
 * access token for `svc-frontend` and a rotating refresh token, in a new grant (`sid`).
 *
 * A username the corporate directory verifies (`LoginService.viaDirectory`) is refused before any
 * attempt is counted, `invalid_grant` with code `directory_account`: directory accounts keep auth's
 * own `/v1/auth/login` and its issuer `{publicUrl}/auth` (issue 15 item 3), where the gateway sends
 * them next; so each attempt is throttled exactly once.
 *
 * Errors (RFC 6749 §5.2 bodies, plus our stable `code`, contracts/web-password.ts): wrong
 * credentials, a disabled account -> 400 `invalid_grant`; throttled -> 429 `login_throttled` with
 * `Retry-After`; password login off -> 400 `unauthorized_client`; directory down -> 503
 * `temporarily_unavailable`. No password in any message.
 */
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { DIRECTORY_ACCOUNT_CODE, type TokenEndpointCode } from '../contracts/web-password.js';
import type { LoginService } from '../domain/login.js';
import type { IdpClaims } from './claims.js';
import { idpClientIp } from './mount.js';
import { FRONTEND_RESOURCE, PASSWORD_GRANT, USER_SCOPES } from './provider.js';
import { withCode } from './token-error-codes.js';

/** Dependencies of `registerPasswordGrant`. */
export interface PasswordGrantDeps {
  login: Pick<LoginService, 'authenticate' | 'signedIn' | 'viaDirectory'>;
  claims: IdpClaims;
  /** The resource-server details of `FRONTEND_RESOURCE` (provider.ts `frontendResourceServer`). */
  frontendResource: Record<string, unknown>;
  /** Lifetime of the grant (the refresh-token lifetime), seconds. */
  grantTtlSeconds: number;
}

type ProviderError = Error & { status: number; statusCode: number; expose: boolean; error_description?: string };

function providerError(status: number, error: string, description: string, code?: TokenEndpointCode): ProviderError {
  // `expose`: oidc-provider renders a 5xx as a bare `server_error` otherwise (503 `temporarily_unavailable` is meant).
  const err = Object.assign(new errors.OIDCProviderError(status, error), { error_description: description, expose: true }) as ProviderError;
  return code ? withCode(err, code) : err;
}

async function verify(deps: PasswordGrantDeps, ctx: KoaContextWithOIDC, username: string, password: string): Promise<string> {
  const ip = idpClientIp(ctx.req);
  try {
    const user = await deps.login.authenticate(username, password, ip);
    await deps.login.signedIn(user, ip, { method: 'password', client_id: ctx.oidc.client?.clientId ?? null, issuer: ctx.oidc.provider.issuer });
    return user.id;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    switch (err.code) {
      case 'login_throttled': {
        const retry = (err as DomainError & { headers?: Record<string, string> }).headers?.['retry-after'];
        if (retry) (ctx as unknown as { set(k: string, v: string): void }).set('retry-after', retry);
        throw providerError(429, 'login_throttled', err.message, 'login_throttled');
      }
      case 'password_login_disabled': throw providerError(400, 'unauthorized_client', err.message, 'password_login_disabled');
      case 'directory_unavailable': throw providerError(503, 'temporarily_unavailable', err.message, 'directory_unavailable');
      default: throw providerError(400, 'invalid_grant', err.message, knownCode(err.code));
    }
  }
}

function knownCode(code: string): TokenEndpointCode | undefined {
  const known: readonly string[] = ['invalid_credentials', 'account_disabled', 'directory_email_missing', 'directory_account_conflict'];
  return known.includes(code) ? code as TokenEndpointCode : undefined;
}

/** Register the `password` grant on `provider`. */
export function registerPasswordGrant(provider: Provider, deps: PasswordGrantDeps): void {
  provider.registerGrantType(PASSWORD_GRANT, async (ctx) => {
    const params = ctx.oidc.params ?? {};
    const username = typeof params.username === 'string' ? params.username : '';
    const password = typeof params.password === 'string' ? params.password : '';
    if (!username || !password) throw providerError(400, 'invalid_request', 'username and password are required');
    if (await deps.login.viaDirectory(username)) {
      throw providerError(400, 'invalid_grant', 'directory accounts sign in through POST /v1/auth/login', DIRECTORY_ACCOUNT_CODE);
    }
    const client = ctx.oidc.client!;
    const accountId = await verify(deps, ctx, username, password);
    const grant = new provider.Grant({ accountId, clientId: client.clientId });
    grant.addOIDCScope(USER_SCOPES);
    grant.addResourceScope(FRONTEND_RESOURCE, USER_SCOPES);
    const grantId = await grant.save(deps.grantTtlSeconds);
    await deps.claims.remember(grantId, accountId, { auth_method: 'password' }, deps.grantTtlSeconds);
    const now = Math.floor(Date.now() / 1000);
    const at = new provider.AccessToken({ accountId, client, grantId, gty: PASSWORD_GRANT, scope: USER_SCOPES });
    at.resourceServer = new provider.ResourceServer(FRONTEND_RESOURCE, deps.frontendResource);
    ctx.oidc.entities.AccessToken = at;
    const accessToken = await at.save();
    const rt = new provider.RefreshToken({
      accountId, client, grantId, gty: PASSWORD_GRANT, scope: USER_SCOPES, resource: FRONTEND_RESOURCE, iiat: now, rotations: 0, authTime: now, amr: ['pwd'],
    });
    const refreshToken = await rt.save();
    ctx.body = { access_token: accessToken, token_type: 'Bearer', expires_in: at.expiration, refresh_token: refreshToken, scope: USER_SCOPES };
  }, ['username', 'password', 'scope']);
}
