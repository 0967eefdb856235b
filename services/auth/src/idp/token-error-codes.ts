/**
 * Our stable `code` beside the RFC 6749 §5.2 `error` of the embedded IdP's token endpoint (issue 15
 * item 1; the table in contracts/web-password.ts), so the gateway's `POST /v1/auth/login` and
 * `POST /v1/auth/refresh`, which use the token endpoint through `svc-web-password`, answer the same
 * codes as auth's own routes.
 *
 * oidc-provider renders only `error`, `error_description` and `scope` of a thrown error; the
 * `grant.error` event hands us the error, and a middleware around the token endpoint adds `code`
 * to the rendered body: the code the password grant attached (`withCode`), or for a refused
 * `refresh_token` grant `refresh_token_reused` (a rotated token came back: oidc-provider revoked the
 * grant), `account_disabled` (the token's account is disabled) or `refresh_token_invalid`.
 */
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { TokenEndpointCode } from '../contracts/web-password.js';
import type { IdpClaims } from './claims.js';

const CODE = Symbol('svc.token-endpoint-code');

/** `err` carrying our stable `code` (the token endpoint adds it to the error body). @returns `err`. */
export function withCode<E extends Error>(err: E, code: TokenEndpointCode): E {
  return Object.assign(err, { [CODE]: code });
}

/** What the `grant.error` listener saw of a refused token request. */
interface Refusal {
  code?: TokenEndpointCode;
  detail: string;
  grantType: string;
  refreshToken: string;
}

/** Add the `code` middleware of the token endpoint to `provider`. */
export function registerTokenErrorCodes(provider: Provider, claims: Pick<IdpClaims, 'isDisabled'>): void {
  const refusals = new WeakMap<object, Refusal>();
  provider.on('grant.error', (c: unknown, e: unknown) => {
    const ctx = c as KoaContextWithOIDC;
    const err = e as Error & { error_detail?: string; [CODE]?: TokenEndpointCode };
    const params = (ctx.oidc?.params ?? {}) as Record<string, unknown>;
    refusals.set(ctx, {
      code: err[CODE],
      detail: typeof err.error_detail === 'string' ? err.error_detail : '',
      grantType: typeof params.grant_type === 'string' ? params.grant_type : '',
      refreshToken: typeof params.refresh_token === 'string' ? params.refresh_token : '',
    });
  });
  provider.use(async (ctx, next) => {
    await next();
    const refusal = refusals.get(ctx);
    const body = ctx.body as { error?: unknown; code?: unknown } | undefined;
    if (!refusal || !body || typeof body !== 'object' || typeof body.error !== 'string' || body.code !== undefined) return;
    const code = refusal.code ?? (refusal.grantType === 'refresh_token' && body.error === 'invalid_grant' ? await refreshCode(provider, claims, refusal) : undefined);
    if (code) body.code = code;
  });
}

async function refreshCode(provider: Provider, claims: Pick<IdpClaims, 'isDisabled'>, refusal: Refusal): Promise<TokenEndpointCode> {
  if (refusal.detail === 'refresh token already used') return 'refresh_token_reused';
  if (refusal.detail.includes('referenced account not found') && refusal.refreshToken) {
    const token = await provider.RefreshToken.find(refusal.refreshToken, { ignoreExpiration: true }).catch(() => undefined);
    if (token?.accountId && await claims.isDisabled(token.accountId)) return 'account_disabled';
  }
  return 'refresh_token_invalid';
}
