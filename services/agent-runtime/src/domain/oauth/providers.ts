/**
 * OAuth providers an admin configures (issue 18 item 1; spec "Agent runtime surfaces":
 * `/v1/admin/oauth-providers/*`). A provider is an `issuer` (endpoints found by OIDC discovery
 * through openid-client) or explicit `authorization_endpoint` + `token_endpoint`; every URL passes
 * the outbound guard. `client_secret_ref` names a tenant secret (domain/secrets.ts), resolved only
 * when a flow talks to the token endpoint; views never carry a secret value.
 */
import { OAUTH_SLUG_PATTERN, type OAuthProviderInput, type OAuthProviderPatch, type OAuthProviderView } from '../../contracts.js';
import { runtimeError } from '../errors.js';
import type { OAuthClientPort, OAuthClientSettings, OAuthProviderRow, OAuthStore } from './ports.js';

const SLUG = new RegExp(OAUTH_SLUG_PATTERN);

/** Resolves a tenant secret by name (`SecretVault.resolve(tenant, null, name)`). */
export type TenantSecret = (tenantId: string, name: string) => Promise<string | null>;

/** The view of a row. */
export function providerView(r: OAuthProviderRow): OAuthProviderView {
  return {
    slug: r.slug, name: r.name, issuer: r.issuer, authorization_endpoint: r.authorization_endpoint, token_endpoint: r.token_endpoint,
    revocation_endpoint: r.revocation_endpoint, client_id: r.client_id, client_secret_ref: r.client_secret_ref,
    scopes: JSON.parse(r.scopes_json) as string[], created_at: r.created_at, updated_at: r.updated_at,
  };
}

/** The slug whose callback path MCP authorization owns. */
const RESERVED_SLUG = 'mcp';

/** Admin CRUD of providers, and the client settings flows use. */
export class OAuthProviders {
  constructor(private readonly d: { store: OAuthStore; client: OAuthClientPort; secret: TenantSecret; now?: () => Date }) {}

  private now(): string { return (this.d.now?.() ?? new Date()).toISOString(); }

  /** Every provider of the tenant, by slug. */
  async list(tenantId: string): Promise<OAuthProviderView[]> {
    return (await this.d.store.providers(tenantId)).map(providerView);
  }

  /** The row of `slug`. @throws DomainError 404 `provider_not_found` (also a malformed slug). */
  async row(tenantId: string, slug: string): Promise<OAuthProviderRow> {
    const r = SLUG.test(slug) ? await this.d.store.provider(tenantId, slug) : undefined;
    if (!r) throw runtimeError('provider_not_found', `no OAuth provider ${SLUG.test(slug) ? slug : '(malformed slug)'}`);
    return r;
  }

  /** One provider. @throws DomainError 404 `provider_not_found`. */
  async get(tenantId: string, slug: string): Promise<OAuthProviderView> {
    return providerView(await this.row(tenantId, slug));
  }

  /**
   * Create. @throws DomainError 409 `provider_exists`, 400 `provider_invalid` (neither issuer nor
   * both endpoints, discovery failed, or the reserved slug `mcp`), 400 `url_not_allowed`.
   */
  async create(tenantId: string, input: OAuthProviderInput): Promise<OAuthProviderView> {
    // `/v1/oauth/mcp/callback` is MCP authorization's callback (routes/mcp-oauth.ts): a provider named `mcp` would never get its own.
    if (input.slug === RESERVED_SLUG) throw runtimeError('provider_invalid', 'the slug "mcp" is reserved for MCP server authorization', { extra: { field: 'body.slug' } });
    if (await this.d.store.provider(tenantId, input.slug)) throw runtimeError('provider_exists', `an OAuth provider ${input.slug} exists`);
    const at = this.now();
    const row = await this.build(tenantId, input, at, at);
    if (!(await this.d.store.insertProvider(row))) throw runtimeError('provider_exists', `an OAuth provider ${input.slug} exists`);
    return providerView(row);
  }

  /** Replace (PUT). The slug of the body must be the path's. @throws as `create`, 404 `provider_not_found`. */
  async replace(tenantId: string, slug: string, input: OAuthProviderInput): Promise<OAuthProviderView> {
    const old = await this.row(tenantId, slug);
    if (input.slug !== slug) throw runtimeError('invalid_request', 'the body slug must be the path slug', { extra: { field: 'body.slug' } });
    const row = await this.build(tenantId, input, old.created_at, this.now());
    await this.d.store.updateProvider(row);
    return providerView(row);
  }

  /** Patch (fields left out keep their value). @throws as `replace`. */
  async patch(tenantId: string, slug: string, patch: OAuthProviderPatch): Promise<OAuthProviderView> {
    const old = providerView(await this.row(tenantId, slug));
    const merged: OAuthProviderInput = {
      slug, name: patch.name ?? old.name, client_id: patch.client_id ?? old.client_id,
      client_secret_ref: patch.client_secret_ref ?? old.client_secret_ref, scopes: patch.scopes ?? old.scopes,
      issuer: patch.issuer !== undefined ? patch.issuer : old.issuer,
      revocation_endpoint: patch.revocation_endpoint !== undefined ? patch.revocation_endpoint : old.revocation_endpoint,
      // A new issuer re-discovers the endpoints unless the patch gives them.
      authorization_endpoint: patch.authorization_endpoint ?? (patch.issuer ? null : old.authorization_endpoint),
      token_endpoint: patch.token_endpoint ?? (patch.issuer ? null : old.token_endpoint),
    };
    return this.replace(tenantId, slug, merged);
  }

  /** Delete (its users' connections and flows go with it). @throws DomainError 404 `provider_not_found`. */
  async delete(tenantId: string, slug: string): Promise<void> {
    await this.row(tenantId, slug);
    await this.d.store.deleteProvider(tenantId, slug);
  }

  /**
   * What the client needs to talk to the provider, with the client secret resolved.
   * @throws DomainError `oauth_exchange_failed` when the named tenant secret does not exist.
   */
  async settings(row: OAuthProviderRow): Promise<OAuthClientSettings> {
    const secret = await this.d.secret(row.tenant_id, row.client_secret_ref);
    if (secret === null) throw runtimeError('oauth_exchange_failed', `the tenant secret ${row.client_secret_ref} of provider ${row.slug} does not exist`);
    return {
      issuer: row.issuer, authorization_endpoint: row.authorization_endpoint, token_endpoint: row.token_endpoint,
      revocation_endpoint: row.revocation_endpoint, client_id: row.client_id, client_secret: secret,
    };
  }

  private async build(tenantId: string, i: OAuthProviderInput, createdAt: string, at: string): Promise<OAuthProviderRow> {
    let auth = i.authorization_endpoint ?? null;
    let token = i.token_endpoint ?? null;
    let revoke = i.revocation_endpoint ?? null;
    const issuer = i.issuer ?? null;
    if (issuer && (!auth || !token)) {
      await this.d.client.checkUrl(issuer);
      const found = await this.d.client.discover(issuer);
      auth ??= found.authorization_endpoint;
      token ??= found.token_endpoint;
      if (i.revocation_endpoint === undefined) revoke = found.revocation_endpoint;
    }
    if (!auth || !token) throw runtimeError('provider_invalid', 'a provider needs an issuer, or both authorization_endpoint and token_endpoint');
    for (const u of [auth, token, revoke]) if (u) await this.d.client.checkUrl(u);
    return {
      tenant_id: tenantId, slug: i.slug, name: i.name?.trim() || i.slug, issuer, authorization_endpoint: auth, token_endpoint: token,
      revocation_endpoint: revoke, client_id: i.client_id, client_secret_ref: i.client_secret_ref,
      scopes_json: JSON.stringify([...new Set(i.scopes)]), created_at: createdAt, updated_at: at,
    };
  }
}
