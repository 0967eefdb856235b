/**
 * MCP authorization (issue 17 item 3; MCP specification "Authorization", 2025-11-25): a streamable
 * HTTP MCP server may answer 401 with `WWW-Authenticate: Bearer resource_metadata=...`. The runtime is
 * then an OAuth 2.1 public client of the server's authorization server: it discovers the protected
 * resource metadata (RFC 9728) and the authorization server metadata (RFC 8414 / OIDC discovery),
 * registers dynamically (RFC 7591) unless the admin pre-registered a client, and sends the user
 * through authorization code + PKCE S256 with the resource indicator (RFC 8707). The SDK's client
 * auth (`@modelcontextprotocol/sdk/client/auth.js`) does these steps over this module's record; the
 * user's browser does the consent, and the callback `GET /v1/oauth/mcp/callback` finishes it.
 *
 * One record per (tenant, user, server): client registration, tokens, PKCE verifier, discovery
 * state, and the pending `state` (single use, 10 minutes). The store seals the record at rest.
 */

/** Whose authorization: a user of a tenant, for one server. */
export interface McpOAuthKey { tenantId: string; userId: string; serverId: string }

/** The per-(tenant, user, server) OAuth state; opaque SDK objects kept as JSON. */
export interface McpOAuthRecord {
  /** The registered client (`client_id`, maybe `client_secret`, `issuer`), from DCR. */
  client_information?: Record<string, unknown>;
  /** The tokens (`access_token`, `refresh_token`, `expires_in`, `scope`, `issuer`). */
  tokens?: Record<string, unknown>;
  /** The PKCE code verifier of the pending authorization. */
  code_verifier?: string;
  /** The discovered resource and authorization server metadata. */
  discovery?: Record<string, unknown>;
  /** The pending authorization's `state` and when it stops being accepted (epoch ms). */
  state?: string;
  state_expires_at?: number;
  /** The authorization URL the user is to open (pending authorization). */
  authorization_url?: string;
  /** When the tokens were saved (ISO). */
  authorized_at?: string;
}

/** Storage of the records (domain/mcp/oauth-vault.ts seals them over store/mcp-oauth.ts). */
export interface McpOAuthVault {
  load(key: McpOAuthKey): Promise<McpOAuthRecord | undefined>;
  save(key: McpOAuthKey, record: McpOAuthRecord): Promise<void>;
  delete(key: McpOAuthKey): Promise<void>;
  /** The record whose pending `state` is `state`, with its key. */
  byState(state: string): Promise<{ key: McpOAuthKey; record: McpOAuthRecord } | undefined>;
}

/** A client the admin registered with the server's authorization server beforehand. */
export interface McpPreregisteredClient { client_id: string; client_secret?: string }

/** How long a pending authorization's `state` is accepted, ms. */
export const MCP_OAUTH_STATE_TTL_MS = 10 * 60_000;

/** The authorization status of a server for a user (the MCP page shows it). */
export type McpAuthorizationStatus = 'authorized' | 'pending' | 'not_authorized';

/** The status a record stands for. */
export function authorizationStatus(record: McpOAuthRecord | undefined, now = Date.now()): McpAuthorizationStatus {
  if (record?.tokens) return 'authorized';
  if (record?.state && (record.state_expires_at ?? 0) > now) return 'pending';
  return 'not_authorized';
}

/** An in-memory vault (the conformance client in bench/, single-process tools). */
export class MemoryOAuthVault implements McpOAuthVault {
  private readonly rows = new Map<string, { key: McpOAuthKey; record: McpOAuthRecord }>();

  private id(k: McpOAuthKey): string { return `${k.tenantId}\u0000${k.userId}\u0000${k.serverId}`; }

  async load(key: McpOAuthKey): Promise<McpOAuthRecord | undefined> { return this.rows.get(this.id(key))?.record; }

  async save(key: McpOAuthKey, record: McpOAuthRecord): Promise<void> { this.rows.set(this.id(key), { key, record }); }

  async delete(key: McpOAuthKey): Promise<void> { this.rows.delete(this.id(key)); }

  async byState(state: string): Promise<{ key: McpOAuthKey; record: McpOAuthRecord } | undefined> {
    for (const r of this.rows.values()) if (r.record.state === state) return r;
    return undefined;
  }
}

/**
 * The server needs the user's authorization (401, or 403 `insufficient_scope` for a step-up) and
 * holds no usable token. `authorizationUrl`: where the user's browser is to go, when the SDK got as
 * far as building it. The MCP page offers "Authorize"; a turn reports it in `mcp_failures`.
 */
export class McpAuthorizationRequired extends Error {
  constructor(readonly authorizationUrl: string | null) {
    super('the MCP server needs your authorization: open the MCP servers page and choose Authorize');
    this.name = 'McpAuthorizationRequired';
  }
}
