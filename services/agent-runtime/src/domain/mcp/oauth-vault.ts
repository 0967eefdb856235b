/**
 * MCP authorization, the runtime's side (issue 17 item 3; MCP "Authorization"): the sealed vault of
 * per-(tenant, user, server) OAuth records, and the use cases behind
 * `POST /v1/user/mcp-servers/{id}/authorize` (start: answers the authorization URL the user opens),
 * `GET /v1/oauth/mcp/callback` (finish: single-use, 10-minute `state`; the code redeemed with the
 * stored PKCE verifier) and `DELETE /v1/user/mcp-servers/{id}/authorization` (forget the tokens).
 * Records are sealed with AES-256-GCM under the data keyring (domain/secrets.ts `seal`), bound by AAD
 * to their tenant, user and server; tokens never reach logs, answers or audit detail.
 */
import type { Awaitable } from '../../../../shared/db/async-store.js';
import { runtimeError } from '../errors.js';
import type { McpAuthorizationView } from '../../contracts.js';
import { seal, unseal, type DataKeyring } from '../secrets.js';
import type { McpCatalog, McpActor } from './catalog.js';
import type { McpConnections } from './connections.js';
import {
  authorizationStatus, McpAuthorizationRequired, type McpOAuthKey, type McpOAuthRecord, type McpOAuthVault, type McpPreregisteredClient,
} from './oauth.js';
import type { McpServerRow } from './ports.js';

/** A stored row of `mcp_oauth` (migration 0014). */
export interface McpOAuthRow {
  tenant_id: string;
  user_id: string;
  server_id: string;
  state: string | null;
  state_expires_at: number | null;
  authorized: number;
  key_id: string;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
  updated_at: string;
}

/** Row storage (store/mcp-oauth.ts). */
export interface McpOAuthRowStore {
  get(tenantId: string, userId: string, serverId: string): Awaitable<McpOAuthRow | undefined>;
  byState(state: string): Awaitable<McpOAuthRow | undefined>;
  put(row: McpOAuthRow): Awaitable<void>;
  delete(tenantId: string, userId: string, serverId: string): Awaitable<void>;
}

const aad = (k: McpOAuthKey): Buffer => Buffer.from(JSON.stringify(['mcp_oauth', k.tenantId, k.userId, k.serverId]), 'utf8');

/** The vault: records sealed at rest. */
export class SealedMcpOAuthVault implements McpOAuthVault {
  constructor(private readonly rows: McpOAuthRowStore, private readonly openKeyring: () => Promise<DataKeyring>) {}

  private async open(row: McpOAuthRow): Promise<McpOAuthRecord> {
    const ring = await this.openKeyring();
    const key = ring.key(row.key_id);
    if (!key) throw runtimeError('secret_store_unavailable', 'the key that sealed this MCP authorization is gone');
    const k = { tenantId: row.tenant_id, userId: row.user_id, serverId: row.server_id };
    return JSON.parse(unseal(key, aad(k), row)) as McpOAuthRecord;
  }

  async load(k: McpOAuthKey): Promise<McpOAuthRecord | undefined> {
    const row = await this.rows.get(k.tenantId, k.userId, k.serverId);
    return row ? this.open(row) : undefined;
  }

  async save(k: McpOAuthKey, record: McpOAuthRecord): Promise<void> {
    const ring = await this.openKeyring();
    const sealed = seal(ring.primary.key, aad(k), JSON.stringify(record));
    await this.rows.put({
      tenant_id: k.tenantId, user_id: k.userId, server_id: k.serverId, state: record.state ?? null,
      state_expires_at: record.state_expires_at ?? null, authorized: record.tokens ? 1 : 0, key_id: ring.primary.id,
      ...sealed, updated_at: new Date().toISOString(),
    });
  }

  async delete(k: McpOAuthKey): Promise<void> { await this.rows.delete(k.tenantId, k.userId, k.serverId); }

  async byState(state: string): Promise<{ key: McpOAuthKey; record: McpOAuthRecord } | undefined> {
    const row = await this.rows.byState(state);
    if (!row) return undefined;
    return { key: { tenantId: row.tenant_id, userId: row.user_id, serverId: row.server_id }, record: await this.open(row) };
  }
}

/** Redeems a code at the server's authorization server (clients/mcp-oauth.ts `finishMcpAuthorization`), as the pre-registered client when there is one. */
export type McpAuthorizationFinisher = (key: McpOAuthKey, serverUrl: string, code: string, preregistered?: McpPreregisteredClient) => Promise<void>;

/** Dependencies of the use cases. */
export interface McpAuthorizationDeps {
  vault: McpOAuthVault;
  catalog: McpCatalog;
  connections: McpConnections;
  finish: McpAuthorizationFinisher;
  now?: () => number;
}

/** The use cases of MCP authorization. */
export class McpAuthorizations {
  constructor(private readonly d: McpAuthorizationDeps) {}

  private now(): number { return (this.d.now ?? Date.now)(); }

  private async httpServer(who: McpActor, id: string): Promise<McpServerRow> {
    const row = await this.d.catalog.get(who, id);
    if (row.transport !== 'streamable_http') throw runtimeError('invalid_request', 'only streamable HTTP MCP servers use OAuth authorization');
    return row;
  }

  /** The caller's authorization of a server. @throws `mcp_server_not_found`. */
  async status(who: McpActor, id: string): Promise<McpAuthorizationView> {
    const row = await this.httpServer(who, id);
    const rec = await this.d.vault.load({ tenantId: who.tenantId, userId: who.userId, serverId: row.id });
    return { server_id: row.id, status: authorizationStatus(rec, this.now()), authorized_at: rec?.authorized_at ?? null, authorization_url: null };
  }

  /**
   * Start (or check) the caller's authorization: connect as them; a server that needs the user
   * answers `pending` with the URL to open, one that accepts the stored token `authorized`.
   * @throws `mcp_server_not_found`; `invalid_request` for a stdio server.
   */
  async start(who: McpActor, id: string): Promise<McpAuthorizationView> {
    const row = await this.httpServer(who, id);
    try {
      await this.d.connections.refresh(row, who.userId);
    } catch (err) {
      const cause = err instanceof Error ? err.cause : undefined;
      const needs = err instanceof McpAuthorizationRequired ? err : cause instanceof McpAuthorizationRequired ? cause : null;
      if (!needs) return { server_id: row.id, status: 'not_authorized', authorized_at: null, authorization_url: null, error: (err as Error).message };
      return { server_id: row.id, status: 'pending', authorized_at: null, authorization_url: needs.authorizationUrl };
    }
    return this.status(who, id);
  }

  /**
   * Finish an authorization from the callback: the `state` must be pending and young; it is used up
   * before the code is redeemed (a replay finds nothing). The server's tools are then listed as the user.
   * @throws `oauth_state_invalid` (unknown or used), `oauth_state_expired`, `oauth_exchange_failed`.
   * @returns the server and user the authorization belongs to.
   */
  async callback(state: string, code: string): Promise<{ serverId: string; serverName: string }> {
    const found = await this.d.vault.byState(state);
    if (!found) throw runtimeError('oauth_state_invalid', 'this authorization link is unknown or was already used');
    const { key, record } = found;
    await this.d.vault.save(key, { ...record, state: undefined, state_expires_at: undefined, authorization_url: undefined });
    if ((record.state_expires_at ?? 0) <= this.now()) throw runtimeError('oauth_state_expired', 'this authorization link expired; start again from the MCP servers page');
    const who = { tenantId: key.tenantId, userId: key.userId, admin: false };
    const row = await this.httpServer(who, key.serverId);
    try {
      const { preregistered } = await this.d.connections.preregistered(row, key.userId);
      await this.d.finish(key, row.url!, code, preregistered);
    } catch (err) {
      throw runtimeError('oauth_exchange_failed', `the authorization server refused the code: ${(err as Error).message}`.slice(0, 300));
    }
    await this.d.connections.refresh(row, key.userId).catch(() => {});
    return { serverId: row.id, serverName: row.name };
  }

  /** Forget the caller's tokens and registration for a server. @throws `mcp_server_not_found`. */
  async revoke(who: McpActor, id: string): Promise<McpAuthorizationView> {
    const row = await this.httpServer(who, id);
    await this.d.vault.delete({ tenantId: who.tenantId, userId: who.userId, serverId: row.id });
    await this.d.connections.forget(row.id, who.userId);
    return { server_id: row.id, status: 'not_authorized', authorized_at: null, authorization_url: null };
  }
}
