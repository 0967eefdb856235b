/**
 * The SDK's `OAuthClientProvider` over the runtime's MCP OAuth record (domain/mcp/oauth.ts; MCP
 * specification "Authorization"). The SDK's `auth()` drives discovery, dynamic registration, PKCE,
 * token requests and refresh; this adapter only keeps what it hands over, in the sealed vault, and
 * captures the authorization URL instead of redirecting (the runtime has no user agent: the user's
 * browser opens it). `state` is random, single use and expires after MCP_OAUTH_STATE_TTL_MS.
 */
import { randomBytes } from 'node:crypto';
import { auth, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import {
  MCP_OAUTH_STATE_TTL_MS, type McpOAuthKey, type McpOAuthRecord, type McpOAuthVault, type McpPreregisteredClient,
} from '../domain/mcp/oauth.js';

/** How the runtime names itself in dynamic client registration. */
const CLIENT_NAME = 'svc workstation';

/** The provider of one (tenant, user, server). */
export class VaultOAuthProvider implements OAuthClientProvider {
  /** The authorization URL the SDK asked to open, when this attempt needs the user. */
  authorizationUrl: URL | null = null;

  /**
   * @param redirect the callback URL registered for the client (`{public_url}/v1/oauth/mcp/callback`).
   * @param preregistered a client the admin registered beforehand (skips dynamic registration).
   */
  constructor(
    private readonly vault: McpOAuthVault,
    private readonly key: McpOAuthKey,
    private readonly redirect: string,
    private readonly preregistered?: McpPreregisteredClient,
  ) {}

  private async record(): Promise<McpOAuthRecord> { return (await this.vault.load(this.key)) ?? {}; }

  private async patch(p: Partial<McpOAuthRecord>): Promise<void> { await this.vault.save(this.key, { ...await this.record(), ...p }); }

  get redirectUrl(): string { return this.redirect; }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: CLIENT_NAME, redirect_uris: [this.redirect], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: this.preregistered?.client_secret ? 'client_secret_basic' : 'none',
    };
  }

  async state(): Promise<string> {
    const state = randomBytes(24).toString('base64url');
    await this.patch({ state, state_expires_at: Date.now() + MCP_OAUTH_STATE_TTL_MS });
    return state;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.preregistered) return { ...this.preregistered };
    return (await this.record()).client_information as OAuthClientInformationMixed | undefined;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    if (!this.preregistered) await this.patch({ client_information: info as unknown as Record<string, unknown> });
  }

  async tokens(): Promise<OAuthTokens | undefined> { return (await this.record()).tokens as OAuthTokens | undefined; }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.patch({ tokens: tokens as unknown as Record<string, unknown>, authorized_at: new Date().toISOString() });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrl = url;
    await this.patch({ authorization_url: url.href });
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> { await this.patch({ code_verifier: codeVerifier }); }

  async codeVerifier(): Promise<string> {
    const v = (await this.record()).code_verifier;
    if (!v) throw new Error('no authorization is pending for this MCP server');
    return v;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> { await this.patch({ discovery: state as unknown as Record<string, unknown> }); }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> { return (await this.record()).discovery as OAuthDiscoveryState | undefined; }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const r = { ...await this.record() };
    if (scope === 'all' || scope === 'client') delete r.client_information;
    if (scope === 'all' || scope === 'tokens') { delete r.tokens; delete r.authorized_at; }
    if (scope === 'all' || scope === 'verifier') delete r.code_verifier;
    if (scope === 'all' || scope === 'discovery') delete r.discovery;
    await this.vault.save(this.key, r);
  }
}

/**
 * Finish a pending authorization: redeem `code` at the server's authorization server (the SDK's
 * `auth()` with the stored verifier and discovery) and clear the pending state.
 * @throws Error when the token request fails.
 */
export async function finishMcpAuthorization(
  provider: VaultOAuthProvider, serverUrl: string, code: string, fetchFn: typeof fetch,
): Promise<void> {
  const res = await auth(provider, { serverUrl, authorizationCode: code, fetchFn });
  if (res !== 'AUTHORIZED') throw new Error('the authorization server did not issue tokens');
}
