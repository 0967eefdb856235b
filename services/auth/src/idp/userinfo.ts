/**
 * The realm's UserInfo endpoint (issue 15 item 1; OpenID Connect Core §5.3, RFC 6750), served by us
 * at `GET|POST {IDP_PREFIX}/protocol/openid-connect/userinfo` in front of oidc-provider's catch-all
 * mount, as Keycloak does: oidc-provider's own userinfo refuses access tokens that carry an
 * audience, and every user access token of the realm is for `aud: svc-frontend`.
 *
 * The bearer (the `Authorization: Bearer` header, or `access_token` in a form body of a POST;
 * RFC 6750 §2.1-2.2, never both) must be a realm access token: a JWT (`typ: at+jwt`, ES256) signed
 * by a realm key (the signing key or a previous one still published), `iss` the realm issuer,
 * `aud: svc-frontend`, not expired, scope `openid`, its sign-in (`sid`, the grant) not revoked and
 * its account present, enabled and with the password of that sign-in (`IdpClaims.account`).
 * Then 200 `{sub, email, email_verified, name, preferred_username, groups, realm_access}` with
 * `Cache-Control: no-store`. Otherwise 401 `{error: "invalid_token", error_description}` with
 * `WWW-Authenticate: Bearer realm="…", error="invalid_token"`; 403 `insufficient_scope` without
 * `openid`; 400 `invalid_request` for a token sent twice. A service token (`aud: svc-internal`) is
 * not a user's token and is refused.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JWK } from 'jose';
import type Provider from 'oidc-provider';
import type { IdpClaims } from './claims.js';
import { publicRealmJwk } from './keys.js';
import { FRONTEND_AUDIENCE, IDP_ROUTES } from './provider.js';

/** Options of `userinfoRoutes`. */
export interface UserinfoOptions {
  provider: Pick<Provider, 'Grant'>;
  claims: Pick<IdpClaims, 'account' | 'idClaims'>;
  /** The realm issuer (`{publicUrl}/idp/realms/svc`). */
  issuer: string;
  /** Path the auth service serves the realm at (`/idp/realms/svc`). */
  localPrefix: string;
  /** The realm keys (private JWKs are reduced to their public half here). */
  keys: readonly JWK[];
}

type Refusal = { refused: true; status: number; error: 'invalid_token' | 'invalid_request' | 'insufficient_scope'; description: string };

const refuse = (status: number, error: Refusal['error'], description: string): Refusal => ({ refused: true, status, error, description });

/** The bearer of `req` (header or form body), or a refusal. */
function bearerOf(req: FastifyRequest): string | Refusal {
  const header = req.headers.authorization;
  const fromHeader = typeof header === 'string' && /^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, '').trim() : null;
  const form = req.body instanceof URLSearchParams ? req.body.get('access_token') : null;
  if (fromHeader !== null && form !== null) return refuse(400, 'invalid_request', 'access token provided in more than one place');
  const token = fromHeader ?? form;
  return token ? token : refuse(401, 'invalid_token', 'no access token provided');
}

/** Register the UserInfo routes of the realm. */
export const userinfoRoutes: FastifyPluginAsync<UserinfoOptions> = async (app, opts) => {
  const jwks = createLocalJWKSet({ keys: opts.keys.map(publicRealmJwk) });
  const realm = new URL(opts.issuer).pathname.split('/').filter(Boolean).pop() ?? 'svc';
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, body, done) => {
    done(null, new URLSearchParams(body as string));
  });

  const verify = async (token: string): Promise<{ refused: false; claims: Record<string, unknown> } | Refusal> => {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, jwks, { issuer: opts.issuer, audience: FRONTEND_AUDIENCE, algorithms: ['ES256'], typ: 'at+jwt' }));
    } catch (err) {
      return refuse(401, 'invalid_token', err instanceof joseErrors.JWTExpired ? 'access token expired' : 'access token invalid');
    }
    const scope = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
    if (!scope.includes('openid')) return refuse(403, 'insufficient_scope', 'the access token lacks the openid scope');
    const sub = payload.sub;
    const sid = typeof payload.sid === 'string' ? payload.sid : undefined;
    if (typeof sub !== 'string' || !sub) return refuse(401, 'invalid_token', 'access token invalid');
    if (sid !== undefined && !(await opts.provider.Grant.find(sid))) return refuse(401, 'invalid_token', 'the sign-in of this access token ended');
    const user = await opts.claims.account(sub, sid);
    if (!user) return refuse(401, 'invalid_token', 'the account of this access token cannot sign in');
    return { refused: false, claims: { ...(await opts.claims.idClaims(user)), preferred_username: user.email } };
  };

  const handle = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    void reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' });
    const token = bearerOf(req);
    const out = typeof token === 'string' ? await verify(token) : token;
    if (!out.refused) return reply.code(200).send(out.claims);
    void reply.header('www-authenticate', `Bearer realm="${realm}", error="${out.error}", error_description="${out.description}"`);
    return reply.code(out.status).send({ error: out.error, error_description: out.description });
  };
  const path = `${opts.localPrefix}${IDP_ROUTES.userinfo}`;
  app.get(path, { config: { public: true } }, handle);
  app.post(path, { config: { public: true } }, handle);
};
