/**
 * Ports of OAuth integrations (issue 18 item 1): the rows the store keeps (store/oauth.ts) and the
 * provider-facing client (clients/oauth.ts, openid-client behind the outbound guard).
 */
import type { Awaitable } from '../../../../shared/db/async-store.js';


/** A configured provider (`scopes_json`: JSON array of strings). */
export interface OAuthProviderRow {
  tenant_id: string;
  slug: string;
  name: string;
  issuer: string | null;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint: string | null;
  client_id: string;
  client_secret_ref: string;
  scopes_json: string;
  created_at: string;
  updated_at: string;
}

/** A started flow, keyed by the SHA-256 of its `state` (the state itself is never stored). */
export interface OAuthStateRow {
  state_hash: string;
  tenant_id: string;
  user_id: string;
  slug: string;
  code_verifier: string;
  redirect_uri: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** `connected` or `failed` once the callback ran. */
  outcome: string | null;
  /** The error code of a failed callback. */
  error: string | null;
}

/** A user's connection: tokens sealed (AES-256-GCM, AAD `["oauth", tenant, user, slug]`). */
export interface OAuthConnectionRow {
  tenant_id: string;
  user_id: string;
  slug: string;
  status: 'connected' | 'needs_reconnect';
  scopes_json: string;
  key_id: string;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
  expires_at: string | null;
  /** Seconds the access token was issued for (sets how early it is refreshed). */
  lifetime_s: number | null;
  connected_at: string;
  last_refreshed_at: string | null;
  updated_at: string;
}

/** The OAuth tables (Awaitable: SQLite answers now, PostgreSQL later; issue 21 item 1). */
export interface OAuthStore {
  provider(tenantId: string, slug: string): Awaitable<OAuthProviderRow | undefined>;
  providers(tenantId: string): Awaitable<OAuthProviderRow[]>;
  /** @returns false when the slug exists (insert only). */
  insertProvider(row: OAuthProviderRow): Awaitable<boolean>;
  updateProvider(row: OAuthProviderRow): Awaitable<void>;
  /** Deletes the provider with its flows and connections. @returns whether it existed. */
  deleteProvider(tenantId: string, slug: string): Awaitable<boolean>;
  putState(row: OAuthStateRow): Awaitable<void>;
  state(hash: string): Awaitable<OAuthStateRow | undefined>;
  /** Mark a flow used; @returns false when it was used already (single use, atomic). */
  useState(hash: string, at: string): Awaitable<boolean>;
  finishState(hash: string, outcome: 'connected' | 'failed', error: string | null): Awaitable<void>;
  /** The user's latest flow for the provider. */
  latestState(tenantId: string, userId: string, slug: string): Awaitable<OAuthStateRow | undefined>;
  /** Drop flows that expired before `before`. */
  pruneStates(before: string): Awaitable<void>;
  connection(tenantId: string, userId: string, slug: string): Awaitable<OAuthConnectionRow | undefined>;
  putConnection(row: OAuthConnectionRow): Awaitable<void>;
  setStatus(tenantId: string, userId: string, slug: string, status: OAuthConnectionRow['status'], at: string): Awaitable<void>;
  deleteConnection(tenantId: string, userId: string, slug: string): Awaitable<boolean>;
  /** Connected rows with an expiry, soonest first. */
  expiring(limit: number): Awaitable<OAuthConnectionRow[]>;
  /** The user's connections (every provider). */
  connectionsOf(tenantId: string, userId: string): Awaitable<OAuthConnectionRow[]>;
}

/** What the provider client needs of a provider: endpoints, client id and the resolved secret. */
export interface OAuthClientSettings {
  issuer: string | null;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint: string | null;
  client_id: string;
  client_secret: string;
}

/** Tokens a provider answered. */
export interface OAuthTokens {
  access_token: string;
  refresh_token?: string;
  /** Seconds, when the provider said. */
  expires_in?: number;
  scope?: string;
}

/** Endpoints found by OIDC discovery. */
export interface OAuthDiscovered {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint: string | null;
}

/**
 * The provider-facing client. Every call goes through the outbound guard; failures throw
 * DomainError `url_not_allowed`, `provider_invalid` (discovery) or `oauth_exchange_failed`
 * (token endpoint refused or unreachable), never a token in a message.
 */
export interface OAuthClientPort {
  /** Check a supplied URL against the outbound guard. @throws DomainError `url_not_allowed`. */
  checkUrl(url: string): Promise<void>;
  discover(issuer: string): Promise<OAuthDiscovered>;
  newVerifier(): { state: string; code_verifier: string };
  authorizationUrl(c: OAuthClientSettings, p: { redirect_uri: string; scope: string; state: string; code_verifier: string }): Promise<string>;
  redeem(c: OAuthClientSettings, callbackUrl: URL, checks: { state: string; code_verifier: string }): Promise<OAuthTokens>;
  refresh(c: OAuthClientSettings, refreshToken: string): Promise<OAuthTokens>;
  /** RFC 7009; @returns false when the provider has no endpoint. */
  revoke(c: OAuthClientSettings, token: string, hint: 'refresh_token' | 'access_token'): Promise<boolean>;
}
