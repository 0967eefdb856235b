/**
 * Finishing a sign-in interaction of the embedded IdP (issue 15 items 1 and 2): the interaction
 * pages (local password with its second factor) and the upstream broker call `finishLogin` once they
 * know the local account. It grants the user scopes and the `svc-frontend` resource (first-party
 * clients: no consent screen), remembers how the account signed in (claims.ts `IdpLoginContext`, so
 * every token of the sign-in carries `auth_method` and `upstream_*`), and resumes the authorization
 * request, which then redirects to the client with a code.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { IdpClaims, IdpLoginContext } from './claims.js';
import { FRONTEND_RESOURCE, USER_SCOPES } from './provider.js';

/** How an interaction's sign-in ended. */
export interface FinishLoginInput {
  /** The local account (users.id). */
  accountId: string;
  authMethod: 'password' | 'upstream_oidc';
  /** The upstream identity, for a brokered sign-in. */
  upstream?: { iss: string; sub: string; preferred_username?: string };
}

/** Options of `finishLogin`. */
export interface FinishLoginOptions {
  /**
   * true (default): answer `res` with 303 to the provider's resume URL. false: only store the result
   * and return that URL (the caller redirects, e.g. from a JSON answer).
   */
  redirect?: boolean;
}

const realms = new WeakMap<Provider, { claims: IdpClaims; grantTtlSeconds: number }>();

/** Tie `provider` to its claims (provider setup only). */
export function bindFinishLogin(provider: Provider, claims: IdpClaims, grantTtlSeconds: number): void {
  realms.set(provider, { claims, grantTtlSeconds });
}

/**
 * Finish the interaction of `req` (its interaction cookie) with `login`.
 * @returns the URL that resumes the authorization request (already sent as a 303 unless `redirect: false`).
 * @throws Error from oidc-provider (`SessionNotFound` and the like) when the interaction is unknown
 *   or expired; Error when `provider` is not the embedded IdP.
 */
export async function finishLogin(provider: Provider, req: IncomingMessage, res: ServerResponse, login: FinishLoginInput, opts: FinishLoginOptions = {}): Promise<string> {
  const realm = realms.get(provider);
  if (!realm) throw new Error('finishLogin: not the embedded IdP provider');
  const details = await provider.interactionDetails(req, res);
  const clientId = String(details.params.client_id ?? '');
  const grant = new provider.Grant({ accountId: login.accountId, clientId });
  grant.addOIDCScope(USER_SCOPES);
  grant.addResourceScope(FRONTEND_RESOURCE, USER_SCOPES);
  const grantId = await grant.save(realm.grantTtlSeconds);
  const how: IdpLoginContext = { auth_method: login.authMethod };
  if (login.upstream) {
    how.upstream_iss = login.upstream.iss;
    how.upstream_sub = login.upstream.sub;
    if (login.upstream.preferred_username !== undefined) how.upstream_preferred_username = login.upstream.preferred_username;
  }
  await realm.claims.remember(grantId, login.accountId, how, realm.grantTtlSeconds);
  const result = {
    login: { accountId: login.accountId, amr: [login.authMethod === 'password' ? 'pwd' : 'fed'], remember: true },
    consent: { grantId },
  };
  const returnTo = await provider.interactionResult(req, res, result, { mergeWithLastSubmission: false });
  if (opts.redirect !== false) {
    res.statusCode = 303;
    res.setHeader('Location', returnTo);
    res.setHeader('Content-Length', '0');
    res.end();
  }
  return returnTo;
}
