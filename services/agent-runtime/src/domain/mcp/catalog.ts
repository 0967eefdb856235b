/**
 * The MCP server catalog (issue 17 item 3; spec "Agent runtime surfaces": `/v1/admin/mcp-servers/*`,
 * `/v1/user/mcp-servers`): tenant servers registered by admins, personal `streamable_http` servers
 * of users (a stdio server runs a command on the workstation: 400 `transport_not_allowed` for users),
 * users' opt-outs. A URL is checked with the outbound guard at registration (400 `url_not_allowed`).
 * Env and header values are stored and answered as written: `${secret:NAME}` references stay
 * references (resolved only at connect time, connections.ts).
 */
import { ulidFactory } from '../../../../shared/identity/ulid.js';
import { checkOutboundUrl, isUrlNotAllowed, type OutboundPolicy } from '../../../../shared/http/outbound.js';
import type { McpServerInput, McpServerView } from '../../contracts.js';
import { invalidField, runtimeError } from '../errors.js';
import type { McpServerRow, McpServerStore } from './ports.js';
import { toolPrefix } from './naming.js';

const nextId = ulidFactory();

/** Who is acting: tenant, user, whether an admin. */
export interface McpActor { tenantId: string; userId: string; admin: boolean }

/** What the catalog tells the connections about (register, replace, drop a server's tools). */
export interface McpCatalogListener {
  changed(row: McpServerRow): void;
  removed(row: McpServerRow): void;
}

/** The view of a row (`optedOut` set for user listings). */
export function serverView(row: McpServerRow, optedOut?: boolean): McpServerView {
  return {
    id: row.id, name: row.name, transport: row.transport, scope: row.owner_id === '' ? 'tenant' : 'personal', owner_id: row.owner_id === '' ? null : row.owner_id,
    command: row.command, args: JSON.parse(row.args_json) as string[], env: JSON.parse(row.env_json) as Record<string, string>, url: row.url,
    headers: JSON.parse(row.headers_json) as Record<string, string>, trusted: row.trusted === 1,
    oauth_client: row.oauth_client_json ? JSON.parse(row.oauth_client_json) as McpServerView['oauth_client'] : null, ...(optedOut !== undefined ? { opted_out: optedOut } : {}),
    tool_prefix: toolPrefix(row.id), created_at: row.created_at, updated_at: row.updated_at,
  };
}

/** The catalog. */
export class McpCatalog {
  constructor(private readonly d: { store: McpServerStore; policy: OutboundPolicy; listener?: McpCatalogListener; now?: () => Date }) {}

  private now(): string { return (this.d.now?.() ?? new Date()).toISOString(); }

  /** Check a body for `who`. @throws DomainError `transport_not_allowed`, `url_not_allowed`, `invalid_request`. */
  private async check(body: McpServerInput, personal: boolean): Promise<void> {
    if (personal && body.transport !== 'streamable_http') throw runtimeError('transport_not_allowed', 'personal MCP servers use streamable_http; only an admin registers a stdio server');
    if (body.transport === 'stdio') {
      if (!body.command) throw invalidField('a stdio server needs a command', 'body.command');
      if (body.url !== undefined || body.headers !== undefined || body.oauth_client) throw invalidField('a stdio server takes no url or headers', body.url !== undefined ? 'body.url' : 'body.headers');
      return;
    }
    if (!body.url) throw invalidField('a streamable_http server needs a url', 'body.url');
    if (body.oauth_client && personal) throw invalidField('only an admin registers an OAuth client for a server', 'body.oauth_client');
    if (body.command !== undefined || body.args !== undefined || body.env !== undefined) throw invalidField('a streamable_http server takes no command, args or env', 'body.command');
    try { await checkOutboundUrl(body.url, this.d.policy); } catch (err) {
      if (isUrlNotAllowed(err)) throw err;
      throw invalidField(`the server's host cannot be resolved (${(err as NodeJS.ErrnoException).code ?? 'lookup failed'})`, 'body.url');
    }
  }

  private rowOf(id: string, tenantId: string, ownerId: string, body: McpServerInput, createdBy: string | null, createdAt: string): McpServerRow {
    return {
      id, tenant_id: tenantId, owner_id: ownerId, name: body.name, transport: body.transport, command: body.command ?? null,
      args_json: JSON.stringify(body.args ?? []), env_json: JSON.stringify(body.env ?? {}), url: body.url ?? null, headers_json: JSON.stringify(body.headers ?? {}),
      trusted: ownerId === '' && body.trusted === true ? 1 : 0, oauth_client_json: body.oauth_client ? JSON.stringify(body.oauth_client) : null, created_by: createdBy, created_at: createdAt, updated_at: this.now(),
    };
  }

  /** Register a server: a tenant one (`personal` false, admins) or the actor's own. */
  async create(who: McpActor, body: McpServerInput, personal: boolean): Promise<McpServerView> {
    await this.check(body, personal);
    const row = this.rowOf(nextId(), who.tenantId, personal ? who.userId : '', body, who.userId, this.now());
    await this.d.store.insert(row);
    this.d.listener?.changed(row);
    return serverView(row);
  }

  /** A server the actor may see (tenant, or their own). @throws DomainError `mcp_server_not_found`. */
  async get(who: McpActor, id: string): Promise<McpServerRow> {
    const row = await this.d.store.get(who.tenantId, id);
    if (!row || (row.owner_id !== '' && row.owner_id !== who.userId)) throw runtimeError('mcp_server_not_found', `no MCP server ${id}`);
    return row;
  }

  /** A tenant server (admin surfaces). @throws DomainError `mcp_server_not_found`. */
  async tenantServer(tenantId: string, id: string): Promise<McpServerRow> {
    const row = await this.d.store.get(tenantId, id);
    if (!row || row.owner_id !== '') throw runtimeError('mcp_server_not_found', `no tenant MCP server ${id}`);
    return row;
  }

  /** Replace a tenant server's registration. */
  async update(tenantId: string, id: string, body: McpServerInput): Promise<McpServerView> {
    const old = await this.tenantServer(tenantId, id);
    await this.check(body, false);
    const row = this.rowOf(id, tenantId, '', body, old.created_by, old.created_at);
    await this.d.store.update(row);
    this.d.listener?.changed(row);
    return serverView(row);
  }

  /** Delete a tenant server (`personal` false) or the actor's own. */
  async remove(who: McpActor, id: string, personal: boolean): Promise<void> {
    const row = personal ? await this.get(who, id) : await this.tenantServer(who.tenantId, id);
    if (personal && row.owner_id !== who.userId) throw runtimeError('mcp_server_not_found', `no personal MCP server ${id}`);
    await this.d.store.delete(who.tenantId, id);
    this.d.listener?.removed(row);
  }

  /** Tenant servers (admin). */
  async listTenant(tenantId: string): Promise<McpServerView[]> {
    return (await this.d.store.list(tenantId, null)).map((r) => serverView(r));
  }

  /** Tenant servers plus the actor's own, with their opt-out state. */
  async listFor(who: McpActor): Promise<McpServerView[]> {
    const out = await this.d.store.optOuts(who.tenantId, who.userId);
    return (await this.d.store.list(who.tenantId, who.userId)).map((r) => serverView(r, out.has(r.id)));
  }

  /** Opt out of (or back into) a tenant server. */
  async optOut(who: McpActor, id: string, optedOut: boolean): Promise<McpServerView> {
    const row = await this.get(who, id);
    await this.d.store.setOptOut(who.tenantId, who.userId, id, optedOut, this.now());
    return serverView(row, optedOut);
  }

  /** Whether `userId` may be offered `row`'s tools (tenant server not opted out, or their own). */
  async visibleTo(row: McpServerRow, userId: string): Promise<boolean> {
    if (row.owner_id !== '') return row.owner_id === userId;
    return !(await this.d.store.optOuts(row.tenant_id, userId)).has(row.id);
  }
}
