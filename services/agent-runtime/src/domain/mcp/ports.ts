/**
 * Ports of the MCP domain (issue 17 item 3): the stored server row, its store, and the connector
 * that opens a live MCP session (clients/mcp.ts implements it with `@modelcontextprotocol/sdk`).
 */
import type { Awaitable } from '../../../../shared/db/async-store.js';
import type { McpTransport } from '../../contracts.js';
import type { McpOAuthKey, McpPreregisteredClient } from './oauth.js';

/** A stored MCP server (table `mcp_servers`). `owner_id` '' = tenant server. */
export interface McpServerRow {
  id: string;
  tenant_id: string;
  owner_id: string;
  name: string;
  transport: McpTransport;
  command: string | null;
  args_json: string;
  /** Values as written, `${secret:NAME}` references unresolved. */
  env_json: string;
  url: string | null;
  headers_json: string;
  trusted: number;
  /** `{client_id, client_secret?}` JSON of a pre-registered OAuth client (secret as a reference), or null (migration 0015). */
  oauth_client_json: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** Storage of MCP servers and users' opt-outs (Awaitable: SQLite answers now, PostgreSQL later; issue 21 item 1). */
export interface McpServerStore {
  get(tenantId: string, id: string): Awaitable<McpServerRow | undefined>;
  /** `userId` null: the tenant's servers; else the tenant's plus that user's own. */
  list(tenantId: string, userId: string | null): Awaitable<McpServerRow[]>;
  listAll(): Awaitable<McpServerRow[]>;
  insert(row: McpServerRow): Awaitable<void>;
  update(row: McpServerRow): Awaitable<void>;
  /** Delete the server with its opt-outs. */
  delete(tenantId: string, id: string): Awaitable<boolean>;
  setOptOut(tenantId: string, userId: string, serverId: string, optedOut: boolean, at: string): Awaitable<void>;
  optOuts(tenantId: string, userId: string): Awaitable<Set<string>>;
}

/** A server's tool as listed (`tools/list`). */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** A tool call's answer, flattened: text of its content blocks, and whether the server marked it an error. */
export interface McpCallAnswer { text: string; isError: boolean }

/** What a connection is opened with: secrets already resolved (never logged). */
export interface McpConnectSpec {
  transport: McpTransport;
  command?: string;
  args?: string[];
  /** The minimal environment: PATH and HOME of the runtime plus the resolved `env`. */
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
  /**
   * Whose OAuth record a streamable HTTP server's authorization uses (MCP "Authorization"; absent =
   * no authorization: a 401 fails the connection), and the admin's pre-registered client, if any.
   */
  oauth?: { key: McpOAuthKey; preregistered?: McpPreregisteredClient };
  /** Called when the server says `notifications/tools/list_changed` (after the SDK re-listed). */
  onToolsChanged(tools: McpToolInfo[]): void;
  /** Called once when the connection closes (the process exited, the session ended). */
  onClose(): void;
}

/** A live MCP session. */
export interface McpSession {
  listTools(timeoutMs: number): Promise<McpToolInfo[]>;
  callTool(name: string, args: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<McpCallAnswer>;
  /** @returns the method that answered (`ping`, or `list_tools` when the server lacks ping). */
  ping(timeoutMs: number): Promise<'ping' | 'list_tools'>;
  close(): Promise<void>;
}

/** Opens MCP sessions. @throws Error (or `url_not_allowed`) when the server cannot be reached. */
export type McpConnector = (spec: McpConnectSpec) => Promise<McpSession>;
