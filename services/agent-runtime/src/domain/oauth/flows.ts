/**
 * A user's OAuth integrations (issue 18 item 1; spec "Agent runtime surfaces":
 * `/v1/oauth/{provider_slug}/start|callback|poll|status`, `DELETE /v1/oauth/{provider_slug}`).
 *
 * `start` issues a random `state` (only its SHA-256 is stored) bound to tenant + user + slug with a
 * PKCE S256 verifier, valid 10 minutes and usable once; `callback` (no bearer: the state is the
 * credential) checks it (`oauth_state_invalid` / `_expired` / `_used`), redeems the code and stores
 * the tokens sealed (AES-256-GCM under the secrets keyring, AAD `["oauth", tenant, user, slug]`).
 * `refreshDue` renews tokens before expiry (the refresher calls it); a refused refresh marks the
 * connection `needs_reconnect` and notifies the user. `accessToken` is the on-demand port for other
 * code (refreshes when the token is about to expire). Tokens never reach logs, errors or answers.
 */
import { createHash } from 'node:crypto';
import { OAUTH_STATE_TTL_MS, type IntegrationStatus, type NotificationCreate, type OAuthDisconnect, type OAuthPoll, type OAuthStart, type OAuthStatus } from '../../contracts.js';
import { DomainError } from '../../../../shared/kit/domain-error.js';
import { runtimeError } from '../errors.js';
import { seal, unseal, type DataKeyring } from '../secrets.js';
import type { OAuthClientPort, OAuthConnectionRow, OAuthStore, OAuthTokens } from './ports.js';
import type { OAuthProviders } from './providers.js';

/** The longest a token is refreshed ahead of its expiry, ms (shorter tokens: a third of their lifetime). */
export const REFRESH_AHEAD_MAX_MS = 60_000;

/** Dependencies of the flows. */
export interface OAuthFlowDeps {
  store: OAuthStore;
  providers: OAuthProviders;
  client: OAuthClientPort;
  openKeyring(): Promise<DataKeyring>;
  /** `{publicUrl}` of the gateway; the redirect URI is `{publicUrl}/v1/oauth/{slug}/callback`. */
  publicUrl: string;
  /** Post a notification to a user (soft: never throws). */
  notify(n: NotificationCreate): void;
  /** Called when a token's expiry changed (the refresher reschedules). */
  changed?: () => void;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  now?: () => Date;
}

/** Who: tenant and user. */
export interface OAuthOwner { tenantId: string; userId: string }

interface TokenSet { access_token: string; refresh_token: string | null }

const hashState = (state: string): string => createHash('sha256').update(state, 'utf8').digest('hex');
const aad = (r: { tenant_id: string; user_id: string; slug: string }): Buffer => Buffer.from(JSON.stringify(['oauth', r.tenant_id, r.user_id, r.slug]), 'utf8');

/** When a connection should be refreshed: its expiry minus min(60 s, a third of its lifetime), ms; null = never. */
export function refreshAt(r: Pick<OAuthConnectionRow, 'expires_at' | 'lifetime_s'>): number | null {
  if (!r.expires_at) return null;
  const ahead = Math.min(REFRESH_AHEAD_MAX_MS, ((r.lifetime_s ?? 180) * 1000) / 3);
  return Date.parse(r.expires_at) - ahead;
}

/** A user's OAuth flows and connections. */
export class OAuthFlows {
  private ring: Promise<DataKeyring> | null = null;
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(private readonly d: OAuthFlowDeps) {}

  private now(): Date { return this.d.now?.() ?? new Date(); }

  private keyring(): Promise<DataKeyring> {
    this.ring ??= this.d.openKeyring().catch((err: unknown) => {
      this.ring = null;
      this.d.log.warn({ err: (err as Error).message }, 'the oauth keyring cannot be opened');
      throw runtimeError('secret_store_unavailable', 'tokens cannot be stored or read now: the key store is unavailable');
    });
    return this.ring;
  }

  /** The redirect URI of `slug`. */
  redirectUri(slug: string): string {
    return `${this.d.publicUrl.replace(/\/+$/, '')}/v1/oauth/${slug}/callback`;
  }

  /**
   * Start a flow. @returns the authorization URL and when the state expires.
   * @throws DomainError 404 `provider_not_found`, `oauth_exchange_failed` (client secret missing).
   */
  async start(o: OAuthOwner, slug: string): Promise<OAuthStart> {
    const p = await this.d.providers.row(o.tenantId, slug);
    const settings = await this.d.providers.settings(p);
    const { state, code_verifier } = this.d.client.newVerifier();
    const now = this.now();
    const expires = new Date(now.getTime() + OAUTH_STATE_TTL_MS).toISOString();
    await this.d.store.pruneStates(new Date(now.getTime() - 24 * 3600_000).toISOString());
    const redirect_uri = this.redirectUri(slug);
    const url = await this.d.client.authorizationUrl(settings, { redirect_uri, scope: (JSON.parse(p.scopes_json) as string[]).join(' '), state, code_verifier });
    await this.d.store.putState({
      state_hash: hashState(state), tenant_id: o.tenantId, user_id: o.userId, slug, code_verifier, redirect_uri,
      created_at: now.toISOString(), expires_at: expires, used_at: null, outcome: null, error: null,
    });
    return { authorization_url: url, expires_at: expires };
  }

  /**
   * The provider redirected back. @throws DomainError 400 `oauth_state_invalid` (unknown, forged,
   * other slug), `oauth_state_expired`, `oauth_state_used`, `oauth_exchange_failed`.
   */
  async callback(slug: string, q: { code?: string; state?: string; error?: string }, callbackUrl: URL): Promise<void> {
    if (!q.state) throw runtimeError('oauth_state_invalid', 'the callback carries no state');
    const hash = hashState(q.state);
    const st = await this.d.store.state(hash);
    if (!st || st.slug !== slug) throw runtimeError('oauth_state_invalid', 'the state was not issued by this workstation');
    if (st.used_at) throw runtimeError('oauth_state_used', 'this authorization was completed already');
    const now = this.now();
    if (Date.parse(st.expires_at) <= now.getTime()) {
      await this.d.store.useState(hash, now.toISOString());
      await this.d.store.finishState(hash, 'failed', 'oauth_state_expired');
      throw runtimeError('oauth_state_expired', 'the authorization took longer than 10 minutes; start again');
    }
    if (!(await this.d.store.useState(hash, now.toISOString()))) throw runtimeError('oauth_state_used', 'this authorization was completed already');
    try {
      if (q.error || !q.code) throw runtimeError('oauth_exchange_failed', q.error ? 'the provider did not authorize the request' : 'the callback carries no code');
      const p = await this.d.providers.row(st.tenant_id, slug);
      const settings = await this.d.providers.settings(p);
      const tokens = await this.d.client.redeem(settings, callbackUrl, { state: q.state, code_verifier: st.code_verifier });
      await this.store({ tenant_id: st.tenant_id, user_id: st.user_id, slug }, tokens, null, JSON.parse(p.scopes_json) as string[], true);
      await this.d.store.finishState(hash, 'connected', null);
    } catch (err) {
      const code = err instanceof DomainError ? err.code : 'oauth_exchange_failed';
      await this.d.store.finishState(hash, 'failed', String(code));
      if (err instanceof DomainError && code === 'oauth_exchange_failed') throw err;
      this.d.log.warn({ slug, err: err instanceof Error ? err.name : 'error' }, 'oauth code exchange failed');
      throw runtimeError('oauth_exchange_failed', 'the provider did not accept the authorization code');
    }
  }

  /** The caller's flow state (`done` once the latest flow ended). @throws DomainError 404 `provider_not_found`. */
  async poll(o: OAuthOwner, slug: string): Promise<OAuthPoll> {
    await this.d.providers.row(o.tenantId, slug);
    const st = await this.d.store.latestState(o.tenantId, o.userId, slug);
    const c = await this.d.store.connection(o.tenantId, o.userId, slug);
    const expired = st && !st.used_at && Date.parse(st.expires_at) <= this.now().getTime();
    const pendingFlow = st && !st.used_at && !expired;
    const status = c?.status ?? (pendingFlow ? 'pending' : 'disconnected');
    if (!st) return { slug, status, done: true };
    if (pendingFlow) return { slug, status: c?.status === 'connected' ? 'connected' : 'pending', done: false };
    const error = expired ? 'oauth_state_expired' : st.outcome === 'failed' ? st.error ?? 'oauth_exchange_failed' : undefined;
    return { slug, status, done: true, ...(error ? { error } : {}) };
  }

  /** The caller's integration with `slug`. @throws DomainError 404 `provider_not_found`. */
  async status(o: OAuthOwner, slug: string): Promise<OAuthStatus> {
    const p = await this.d.providers.row(o.tenantId, slug);
    const c = await this.d.store.connection(o.tenantId, o.userId, slug);
    if (!c) {
      const st = await this.d.store.latestState(o.tenantId, o.userId, slug);
      const pending = st && !st.used_at && Date.parse(st.expires_at) > this.now().getTime();
      return { slug, status: pending ? 'pending' : 'disconnected', scopes: JSON.parse(p.scopes_json) as string[], expires_at: null, connected_at: null, last_refreshed_at: null };
    }
    return { slug, status: c.status, scopes: JSON.parse(c.scopes_json) as string[], expires_at: c.expires_at, connected_at: c.connected_at, last_refreshed_at: c.last_refreshed_at };
  }

  /**
   * Disconnect: revoke at the provider (RFC 7009, refresh token first) where it has an endpoint,
   * then forget the tokens. @returns `revoked` true when the provider accepted the revocation.
   * @throws DomainError 404 `provider_not_found`.
   */
  async disconnect(o: OAuthOwner, slug: string): Promise<OAuthDisconnect> {
    const p = await this.d.providers.row(o.tenantId, slug);
    const c = await this.d.store.connection(o.tenantId, o.userId, slug);
    let revoked = false;
    if (c && p.revocation_endpoint) {
      try {
        const t = await this.open(c);
        const settings = await this.d.providers.settings(p);
        revoked = await this.d.client.revoke(settings, t.refresh_token ?? t.access_token, t.refresh_token ? 'refresh_token' : 'access_token');
        if (t.refresh_token) await this.d.client.revoke(settings, t.access_token, 'access_token').catch(() => false);
      } catch (err) {
        this.d.log.warn({ slug, code: err instanceof DomainError ? err.code : 'error' }, 'oauth revocation failed; the tokens are forgotten anyway');
      }
    }
    await this.d.store.deleteConnection(o.tenantId, o.userId, slug);
    this.d.changed?.();
    return { slug, status: 'disconnected', revoked };
  }

  /**
   * A valid access token of the user's integration (refreshed first when it is about to expire).
   * For other runtime code (connectors, tools); never for a route answer.
   * @throws DomainError 409 `oauth_not_connected`, 404 `provider_not_found`.
   */
  async accessToken(o: OAuthOwner, slug: string): Promise<string> {
    const c = await this.d.store.connection(o.tenantId, o.userId, slug);
    if (!c || c.status !== 'connected') throw runtimeError('oauth_not_connected', `the ${slug} integration is not connected`);
    const due = refreshAt(c);
    if (due !== null && due <= this.now().getTime()) return this.refreshOne(c);
    return (await this.open(c)).access_token;
  }

  /** Refresh every connection due by now. @returns the next due time (ms epoch) or null. */
  async refreshDue(): Promise<number | null> {
    const now = this.now().getTime();
    let next: number | null = null;
    for (const c of await this.d.store.expiring(500)) {
      const due = refreshAt(c);
      if (due === null) continue;
      if (due <= now) await this.refreshOne(c).catch(() => undefined);
      else { next = next === null ? due : Math.min(next, due); }
    }
    return next;
  }

  /** The `oauth` integrations source: one item per configured provider, with the caller's state. */
  async integrations(o: OAuthOwner): Promise<IntegrationStatus[]> {
    const out: IntegrationStatus[] = [];
    for (const p of await this.d.store.providers(o.tenantId)) {
      const s = await this.status(o, p.slug);
      const state = s.status === 'connected' ? 'connected' : s.status === 'needs_reconnect' ? 'error' : 'disconnected';
      const detail = s.status === 'connected' ? `Connected${s.last_refreshed_at ? `; refreshed ${s.last_refreshed_at}` : ''}.`
        : s.status === 'needs_reconnect' ? 'The provider refused a token refresh; connect again.' : s.status === 'pending' ? 'Waiting for the sign-in at the provider.' : 'Not connected.';
      out.push({ id: `oauth:${p.slug}`, kind: 'oauth', name: p.name, state, detail } as IntegrationStatus);
    }
    return out;
  }

  private refreshOne(c: OAuthConnectionRow): Promise<string> {
    const key = JSON.stringify([c.tenant_id, c.user_id, c.slug]);
    const running = this.inflight.get(key);
    if (running) return running;
    const p = this.doRefresh(c).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private async doRefresh(c: OAuthConnectionRow): Promise<string> {
    const t = await this.open(c);
    const provider = await this.d.store.provider(c.tenant_id, c.slug);
    if (!provider || !t.refresh_token) return this.fail(c, !provider ? 'the provider was removed' : 'the provider gave no refresh token');
    let tokens: OAuthTokens;
    try {
      tokens = await this.d.client.refresh(await this.d.providers.settings(provider), t.refresh_token);
    } catch (err) {
      return this.fail(c, err instanceof DomainError ? err.message : 'the refresh failed');
    }
    const at = this.now().toISOString();
    await this.store(c, { ...tokens, refresh_token: tokens.refresh_token ?? t.refresh_token }, at, JSON.parse(c.scopes_json) as string[], false);
    return tokens.access_token;
  }

  private async fail(c: OAuthConnectionRow, why: string): Promise<never> {
    const at = this.now().toISOString();
    await this.d.store.setStatus(c.tenant_id, c.user_id, c.slug, 'needs_reconnect', at);
    this.d.log.info({ slug: c.slug }, 'oauth refresh failed; the integration needs reconnecting');
    const name = (await this.d.store.provider(c.tenant_id, c.slug))?.name ?? c.slug;
    this.d.notify({
      tenant_id: c.tenant_id, user_id: c.user_id, kind: 'integration.needs_reconnect', title: `Reconnect ${name}`,
      body: `The ${name} integration could not renew its access (${why.slice(0, 200)}). Open Integrations and connect it again.`,
      payload: { slug: c.slug, status: 'needs_reconnect' }, idempotency_key: `oauth-reconnect:${c.slug}:${at}`,
    });
    this.d.changed?.();
    throw runtimeError('oauth_not_connected', `the ${c.slug} integration needs reconnecting`);
  }

  private async open(c: OAuthConnectionRow): Promise<TokenSet> {
    const ring = await this.keyring();
    const key = ring.key(c.key_id);
    try {
      if (!key) throw new Error('data key not available');
      return JSON.parse(unseal(key, aad(c), c)) as TokenSet;
    } catch {
      throw runtimeError('secret_store_unavailable', `the tokens of the ${c.slug} integration cannot be opened`);
    }
  }

  private async store(who: { tenant_id: string; user_id: string; slug: string }, tokens: OAuthTokens, refreshedAt: string | null, scopes: string[], fresh: boolean): Promise<void> {
    const ring = await this.keyring();
    const now = this.now();
    const old = await this.d.store.connection(who.tenant_id, who.user_id, who.slug);
    const sealed = seal(ring.primary.key, aad(who), JSON.stringify({ access_token: tokens.access_token, refresh_token: tokens.refresh_token ?? null } satisfies TokenSet));
    const life = typeof tokens.expires_in === 'number' && tokens.expires_in > 0 ? Math.round(tokens.expires_in) : null;
    await this.d.store.putConnection({
      ...who, status: 'connected', scopes_json: JSON.stringify(tokens.scope ? tokens.scope.split(' ').filter(Boolean) : scopes),
      key_id: ring.primary.id, ...sealed, expires_at: life ? new Date(now.getTime() + life * 1000).toISOString() : null, lifetime_s: life,
      connected_at: fresh || !old ? now.toISOString() : old.connected_at, last_refreshed_at: fresh ? null : refreshedAt ?? old?.last_refreshed_at ?? null,
      updated_at: now.toISOString(),
    });
    this.d.changed?.();
  }
}
