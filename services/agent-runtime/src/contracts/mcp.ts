/**
 * MCP server contracts (issue 17 item 3; spec "Agent runtime surfaces": `/v1/admin/mcp-servers/*`,
 * `/v1/user/mcp-servers`): the registration body, the view answered (env/header values as written,
 * `${secret:NAME}` references never resolved), health and tool listings. Node-free.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { Id, OrNull, StringEnum, Timestamp } from './atoms.js';

/** MCP transports: `stdio` (admins only: runs a command on the workstation) and `streamable_http`. */
export const MCP_TRANSPORTS = ['stdio', 'streamable_http'] as const;
/** An MCP transport. */
export type McpTransport = (typeof MCP_TRANSPORTS)[number];

/** A `${secret:NAME}` reference inside an env or header value (resolved at connect time). */
export const SECRET_REF_RE = /\$\{secret:([A-Za-z0-9_.-]{1,64})\}/g;

const StringMap = Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_.-]{0,127}$' }), Type.String({ maxLength: 4096 }));

/** A pre-registered OAuth client of an MCP server (`client_secret`: a `${secret:NAME}` reference). */
export const McpOAuthClientSchema = Type.Object({
  client_id: Type.String({ minLength: 1, maxLength: 512 }),
  client_secret: Type.Optional(Type.String({ pattern: '^\\$\\{secret:[A-Za-z0-9_.-]{1,64}\\}$' })),
}, { additionalProperties: false });

/** Body of `POST /v1/admin/mcp-servers`, `POST /v1/user/mcp-servers` and `PUT .../{id}`. */
export const McpServerInputSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 120 }),
  transport: StringEnum(MCP_TRANSPORTS),
  command: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  args: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 64 })),
  env: Type.Optional(StringMap),
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  headers: Type.Optional(StringMap),
  /** Honour the server's tool annotations (readOnlyHint -> `auto`); admins only. */
  trusted: Type.Optional(Type.Boolean()),
  /**
   * A client registered beforehand at the server's OAuth authorization server (MCP "Authorization",
   * pre-registration); `client_secret` must be a `${secret:NAME}` reference. Absent or null: the
   * runtime registers itself dynamically when the server asks for authorization.
   */
  oauth_client: Type.Optional(OrNull(McpOAuthClientSchema)),
}, { additionalProperties: false });
/** Registration body. */
export type McpServerInput = Static<typeof McpServerInputSchema>;

/** An MCP server as answered (env/header values as registered: `${secret:NAME}` stays a reference). */
export const McpServerViewSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  transport: StringEnum(MCP_TRANSPORTS),
  scope: StringEnum(['tenant', 'personal'] as const),
  owner_id: OrNull(Type.String()),
  command: OrNull(Type.String()),
  args: Type.Array(Type.String()),
  env: Type.Record(Type.String(), Type.String()),
  url: OrNull(Type.String()),
  headers: Type.Record(Type.String(), Type.String()),
  trusted: Type.Boolean(),
  /** The pre-registered OAuth client (its secret as the reference written), or null. */
  oauth_client: OrNull(McpOAuthClientSchema),
  /** The caller opted out of this tenant server (user listing only). */
  opted_out: Type.Optional(Type.Boolean()),
  /** Function-name prefix of its tools in the registry: `mcp_<8 chars of the id>_`. */
  tool_prefix: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
/** An MCP server view. */
export type McpServerView = Static<typeof McpServerViewSchema>;

/** `{items}` of MCP servers. */
export const McpServerListSchema = Type.Object({ items: Type.Array(McpServerViewSchema) });

/** `{id}` path parameter. */
export const McpServerParams = Type.Object({ id: Id });

/** Body of `PUT /v1/user/mcp-servers/{id}/opt-out`. */
export const McpOptOutSchema = Type.Object({ opted_out: Type.Boolean() }, { additionalProperties: false });

/** Answer of `POST .../{id}/health`: `ok` when ping (or, without ping, a tool listing) answered in time. */
export const McpHealthSchema = Type.Object({
  server_id: Type.String(),
  ok: Type.Boolean(),
  /** `ping`, or `list_tools` when the server lacks ping. */
  method: OrNull(StringEnum(['ping', 'list_tools'] as const)),
  latency_ms: OrNull(Type.Number()),
  error: OrNull(Type.String()),
  checked_at: Timestamp,
});
/** A health answer. */
export type McpHealth = Static<typeof McpHealthSchema>;

/**
 * The caller's OAuth authorization of a streamable HTTP server (MCP "Authorization"; issue 17 item 3):
 * `POST /v1/user/mcp-servers/{id}/authorize` (start: `pending` with the `authorization_url` to open
 * in the browser, or `authorized` when the stored token is accepted), `GET .../authorization`,
 * `DELETE .../authorization` (forget the tokens).
 */
export const McpAuthorizationSchema = Type.Object({
  server_id: Type.String(),
  status: StringEnum(['authorized', 'pending', 'not_authorized'] as const),
  authorized_at: OrNull(Timestamp),
  authorization_url: OrNull(Type.String()),
  /** Why the server could not be reached, when it failed for another reason than authorization. */
  error: Type.Optional(Type.String()),
});
/** An authorization answer. */
export type McpAuthorizationView = Static<typeof McpAuthorizationSchema>;

/** `GET /v1/admin/mcp-servers/{id}/tools`: the server's tools as the runtime registers them. */
export const McpToolListSchema = Type.Object({
  items: Type.Array(Type.Object({
    /** Function name in the registry (`mcp_<8>_<tool>`, at most 64 characters). */
    name: Type.String(),
    /** The server's own tool name. */
    tool: Type.String(),
    description: Type.String(),
    policy: StringEnum(['auto', 'ask', 'deny'] as const),
    annotations: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  })),
});
/** A tool listing. */
export type McpToolList = Static<typeof McpToolListSchema>;

/** Error rows of the MCP surfaces (merged into `AGENT_RUNTIME_ERRORS`). */
export const MCP_ERRORS = {
  /** An MCP server that does not exist, or another user's personal one. */
  mcp_server_not_found: 404,
  /** A personal (user) server with `stdio`: only admins register servers that run commands. */
  transport_not_allowed: 400,
  /** A server URL at the workstation's own service ports, link-local or unspecified addresses, or not http(s). */
  url_not_allowed: 400,
} as const;

/** A tool group as `/v1/user/plugins` and `/v1/admin/plugins` list it (issue 17 item 4). */
export const PluginViewSchema = Type.Object({
  /** `builtin`, `sandbox`, `knowledge`, `memory` or `mcp:<server_id>`. */
  id: Type.String(),
  /** The MCP server's name for `mcp:*`, else the id. */
  name: Type.String(),
  /** Names of its tools as registered now. */
  tools: Type.Array(Type.String()),
  /** Who sees it: empty roles and groups = everyone. */
  roles: Type.Array(Type.String()),
  groups: Type.Array(Type.String()),
});
/** A plugin view. */
export type PluginView = Static<typeof PluginViewSchema>;

/** `{items}` of plugins. */
export const PluginListSchema = Type.Object({ items: Type.Array(PluginViewSchema) });

/** `{id}` of a plugin (`builtin`, `mcp:<id>`, ...). */
export const PluginParams = Type.Object({ id: Type.String({ pattern: '^(builtin|sandbox|knowledge|memory|mcp:[A-Za-z0-9]{1,64})$' }) });

/** Body of `PUT /v1/admin/plugins/{id}`: who sees the group (both empty = everyone). */
export const PluginPutSchema = Type.Object({
  roles: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 64 })),
  groups: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 256 })),
}, { additionalProperties: false });
