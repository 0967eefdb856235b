/**
 * The provider-facing OAuth client (issue 18 item 1): `OAuthClientPort` over openid-client v6
 * (discovery, authorization URL with PKCE S256, code and refresh grants, RFC 7009 revocation).
 * Every request goes through the outbound guard's agent (openid-client's `customFetch` over undici
 * with the guarded dispatcher), so a provider URL at the workstation's own service ports or
 * link-local is refused at connect time. Errors carry no token, code or secret.
 */
import * as oidc from 'openid-client';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { checkOutboundUrl, isUrlNotAllowed, type OutboundPolicy } from '../../../shared/http/outbound.js';
import type { OAuthClientPort, OAuthClientSettings, OAuthDiscovered, OAuthTokens } from '../domain/oauth/ports.js';

/** Timeout of one provider request, seconds. */
const TIMEOUT_S = 10;
/** How long a discovered or built configuration is reused, ms. */
const CACHE_MS = 5 * 60_000;

const insecure = (u: string): boolean => new URL(u).protocol === 'http:';

function failed(err: unknown, code: 'provider_invalid' | 'oauth_exchange_failed', what: string): DomainError {
  if (isUrlNotAllowed(err)) return err as DomainError;
  const c = (err as { cause?: unknown } | null)?.cause;
  if (isUrlNotAllowed(c)) return c as DomainError;
  const reason = err instanceof oidc.ResponseBodyError ? `${err.error}` : err instanceof Error ? err.name : 'error';
  return new DomainError(code, `${what} (${reason})`);
}

/** `OAuthClientPort` over openid-client and the guarded dispatcher. */
export class OpenIdOAuthClient implements OAuthClientPort {
  private readonly fetch: oidc.CustomFetch;
  private readonly cache = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();

  constructor(private readonly opts: { dispatcher: Dispatcher; policy: OutboundPolicy }) {
    const dispatcher = opts.dispatcher;
    this.fetch = ((url: string, init: Parameters<oidc.CustomFetch>[1]) =>
      undiciFetch(url, { ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1])) as unknown as oidc.CustomFetch;
  }

  async checkUrl(url: string): Promise<void> {
    let u: URL;
    try { u = new URL(url); } catch { throw new DomainError('provider_invalid', 'a provider URL is not an absolute URL'); }
    if (u.username || u.password || u.hash) throw new DomainError('provider_invalid', 'a provider URL may not carry credentials or a fragment');
    try { await checkOutboundUrl(u, this.opts.policy); } catch (err) {
      if (isUrlNotAllowed(err)) throw err;
      // A name that does not resolve today may resolve later.
    }
  }

  async discover(issuer: string): Promise<OAuthDiscovered> {
    try {
      const config = await oidc.discovery(new URL(issuer), 'discovery', undefined, oidc.None(), {
        [oidc.customFetch]: this.fetch, execute: insecure(issuer) ? [oidc.allowInsecureRequests] : [], timeout: TIMEOUT_S,
      });
      const m = config.serverMetadata();
      if (!m.authorization_endpoint || !m.token_endpoint) throw new DomainError('provider_invalid', 'the discovery document has no authorization or token endpoint');
      return { issuer: m.issuer, authorization_endpoint: m.authorization_endpoint, token_endpoint: m.token_endpoint, revocation_endpoint: m.revocation_endpoint ?? null };
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw failed(err, 'provider_invalid', 'the OIDC discovery of the issuer failed');
    }
  }

  newVerifier(): { state: string; code_verifier: string } {
    return { state: oidc.randomState(), code_verifier: oidc.randomPKCECodeVerifier() };
  }

  private config(c: OAuthClientSettings): Promise<oidc.Configuration> {
    const key = JSON.stringify([c.issuer, c.authorization_endpoint, c.token_endpoint, c.revocation_endpoint, c.client_id, c.client_secret]);
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.config;
    const execute = insecure(c.token_endpoint) ? [oidc.allowInsecureRequests] : [];
    const config = (async () => {
      let issuer = c.issuer ?? new URL(c.authorization_endpoint).origin;
      if (c.issuer) {
        try { issuer = (await this.discover(c.issuer)).issuer; } catch { /* the stored endpoints still work */ }
      }
      const meta: oidc.ServerMetadata = {
        issuer, authorization_endpoint: c.authorization_endpoint, token_endpoint: c.token_endpoint,
        ...(c.revocation_endpoint ? { revocation_endpoint: c.revocation_endpoint } : {}),
      };
      const conf = new oidc.Configuration(meta, c.client_id, { client_secret: c.client_secret }, oidc.ClientSecretBasic(c.client_secret));
      conf[oidc.customFetch] = this.fetch;
      conf.timeout = TIMEOUT_S;
      for (const e of execute) e(conf);
      return conf;
    })();
    config.catch(() => this.cache.delete(key));
    if (this.cache.size > 100) this.cache.clear();
    this.cache.set(key, { at: Date.now(), config });
    return config;
  }

  async authorizationUrl(c: OAuthClientSettings, p: { redirect_uri: string; scope: string; state: string; code_verifier: string }): Promise<string> {
    const config = await this.config(c);
    return oidc.buildAuthorizationUrl(config, {
      redirect_uri: p.redirect_uri, scope: p.scope, state: p.state,
      code_challenge: await oidc.calculatePKCECodeChallenge(p.code_verifier), code_challenge_method: 'S256',
    }).href;
  }

  async redeem(c: OAuthClientSettings, callbackUrl: URL, checks: { state: string; code_verifier: string }): Promise<OAuthTokens> {
    const config = await this.config(c);
    try {
      const t = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: checks.code_verifier, expectedState: checks.state, idTokenExpected: false });
      return tokensOf(t);
    } catch (err) {
      throw failed(err, 'oauth_exchange_failed', 'the provider did not accept the authorization code');
    }
  }

  async refresh(c: OAuthClientSettings, refreshToken: string): Promise<OAuthTokens> {
    const config = await this.config(c);
    try {
      return tokensOf(await oidc.refreshTokenGrant(config, refreshToken));
    } catch (err) {
      throw failed(err, 'oauth_exchange_failed', 'the provider refused the token refresh');
    }
  }

  async revoke(c: OAuthClientSettings, token: string, hint: 'refresh_token' | 'access_token'): Promise<boolean> {
    if (!c.revocation_endpoint) return false;
    const config = await this.config(c);
    try {
      await oidc.tokenRevocation(config, token, { token_type_hint: hint });
      return true;
    } catch (err) {
      throw failed(err, 'oauth_exchange_failed', 'the provider refused the revocation');
    }
  }
}

function tokensOf(t: oidc.TokenEndpointResponse): OAuthTokens {
  return {
    access_token: t.access_token,
    ...(t.refresh_token ? { refresh_token: t.refresh_token } : {}),
    ...(typeof t.expires_in === 'number' ? { expires_in: t.expires_in } : {}),
    ...(t.scope ? { scope: t.scope } : {}),
  };
}
