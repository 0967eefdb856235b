/**
 * The broker's HTTP side (issue 15 item 2): `openid-client` 6 talking to a company's OpenID Connect
 * provider (discovery, authorization URL with PKCE S256, code redemption with state, nonce and ID
 * token checks, userinfo). Every request goes through the outbound guard's undici agent
 * (`services/shared/http/outbound-agent.ts`, via openid-client's `customFetch`), so an issuer an
 * admin supplies can never reach the workstation's own service ports or a link-local address.
 * Plain `http:` issuers are accepted only on loopback hosts (a company IdP on this machine, tests);
 * everything else must be https.
 */
import * as oidc from 'openid-client';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { checkOutboundUrl, isUrlNotAllowed, type OutboundPolicy } from '../../../shared/http/outbound.js';
import type { UpstreamClientSettings, UpstreamMetadata, UpstreamOidcPort } from '../domain/upstream-broker.js';

/** How long a discovered configuration is reused, ms. */
const DISCOVERY_CACHE_MS = 5 * 60_000;

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Options of `OpenIdUpstreamClient`. */
export interface OpenIdUpstreamClientOptions {
  /** The guarded agent (`createOutboundAgent`). */
  dispatcher: Dispatcher;
  /** The same policy, to check an issuer before it is saved. */
  policy: OutboundPolicy;
  /** Timeout of each upstream request, seconds. Default 10. */
  timeoutSeconds?: number;
}

function unavailable(err: unknown, what: string): DomainError {
  if (isUrlNotAllowed(err)) return err as DomainError;
  const c = (err as { cause?: unknown } | null)?.cause;
  if (isUrlNotAllowed(c)) return c as DomainError;
  return new DomainError('upstream_unavailable', `${what}: ${(err as Error)?.message ?? 'failed'}`);
}

/** openid-client errors that mean the upstream refused or sent an invalid answer (not an outage). */
function isRejection(err: unknown): boolean {
  if (err instanceof oidc.AuthorizationResponseError || err instanceof oidc.ResponseBodyError || err instanceof oidc.WWWAuthenticateChallengeError) return true;
  return err instanceof oidc.ClientError && !/^OAUTH_(RESPONSE_IS_NOT_CONFORM|RESPONSE_IS_NOT_JSON|HTTP_REQUEST_FORBIDDEN)$/.test(err.code ?? '');
}

/** `UpstreamOidcPort` over openid-client. */
export class OpenIdUpstreamClient implements UpstreamOidcPort {
  private readonly cache = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();
  private readonly fetch: oidc.CustomFetch;
  private readonly timeout: number;

  constructor(private readonly opts: OpenIdUpstreamClientOptions) {
    this.timeout = opts.timeoutSeconds ?? 10;
    const dispatcher = opts.dispatcher;
    this.fetch = ((url: string, init: Parameters<oidc.CustomFetch>[1]) =>
      undiciFetch(url, { ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1])) as unknown as oidc.CustomFetch;
  }

  async checkIssuer(issuer: string): Promise<void> {
    let u: URL;
    try { u = new URL(issuer); } catch { throw new DomainError('issuer_invalid', 'the issuer is not an absolute URL'); }
    if (u.protocol !== 'https:' && !(u.protocol === 'http:' && LOOPBACK_HOST.test(u.hostname))) {
      throw new DomainError('issuer_invalid', 'the issuer must be an https URL (http only on a loopback host)');
    }
    if (u.search || u.hash || u.username || u.password) throw new DomainError('issuer_invalid', 'the issuer may not carry a query, fragment or credentials');
    try { await checkOutboundUrl(u, this.opts.policy); } catch (err) {
      if (isUrlNotAllowed(err)) throw err;
      // A name that does not resolve today may resolve later; the test route reports it.
    }
  }

  private config(c: UpstreamClientSettings): Promise<oidc.Configuration> {
    const key = JSON.stringify([c.issuer, c.client_id, c.client_secret]);
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < DISCOVERY_CACHE_MS) return hit.config;
    const execute = new URL(c.issuer).protocol === 'http:' ? [oidc.allowInsecureRequests] : [];
    const config = oidc.discovery(new URL(c.issuer), c.client_id, { client_secret: c.client_secret }, oidc.ClientSecretBasic(c.client_secret), {
      [oidc.customFetch]: this.fetch, execute, timeout: this.timeout,
    }).catch((err: unknown) => { this.cache.delete(key); throw unavailable(err, 'the upstream discovery failed'); });
    if (this.cache.size > 100) this.cache.clear();
    this.cache.set(key, { at: Date.now(), config });
    return config;
  }

  async metadata(c: UpstreamClientSettings): Promise<UpstreamMetadata> {
    const m = (await this.config(c)).serverMetadata();
    if (!m.authorization_endpoint || !m.token_endpoint) {
      throw new DomainError('upstream_unavailable', 'the upstream discovery document has no authorization or token endpoint');
    }
    return { issuer: m.issuer, authorization_endpoint: m.authorization_endpoint, token_endpoint: m.token_endpoint };
  }

  newChecks(): { state: string; nonce: string; code_verifier: string } {
    return { state: oidc.randomState(), nonce: oidc.randomNonce(), code_verifier: oidc.randomPKCECodeVerifier() };
  }

  async authorizationUrl(c: UpstreamClientSettings, p: { redirect_uri: string; scope: string; state: string; nonce: string; code_verifier: string }): Promise<string> {
    const config = await this.config(c);
    await this.metadata(c);
    return oidc.buildAuthorizationUrl(config, {
      redirect_uri: p.redirect_uri, scope: p.scope, state: p.state, nonce: p.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(p.code_verifier), code_challenge_method: 'S256',
    }).href;
  }

  async redeem(c: UpstreamClientSettings, callbackUrl: URL, checks: { state: string; nonce: string; code_verifier: string }): Promise<Record<string, unknown>> {
    const config = await this.config(c);
    let claims: Record<string, unknown>;
    let accessToken: string;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.code_verifier, expectedState: checks.state, expectedNonce: checks.nonce, idTokenExpected: true,
      });
      claims = { ...(tokens.claims() ?? {}) };
      accessToken = tokens.access_token;
    } catch (err) {
      if (isRejection(err)) throw new DomainError('upstream_rejected', `the upstream refused the sign-in: ${(err as Error).message}`);
      throw unavailable(err, 'the upstream token endpoint failed');
    }
    if (config.serverMetadata().userinfo_endpoint) {
      try {
        const info = await oidc.fetchUserInfo(config, accessToken, String(claims['sub']));
        claims = { ...info, ...claims };
      } catch (err) {
        if (isRejection(err)) throw new DomainError('upstream_rejected', `the upstream userinfo was refused: ${(err as Error).message}`);
        throw unavailable(err, 'the upstream userinfo endpoint failed');
      }
    }
    return claims;
  }
}
