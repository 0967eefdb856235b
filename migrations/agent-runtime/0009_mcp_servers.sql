-- MCP servers (issue 17 item 3): tenant servers registered by admins (owner_id = '') and personal
-- streamable HTTP servers of users (owner_id = the user). env/headers keep `${secret:NAME}`
-- references as written; values are resolved at connect time and never stored here.
CREATE TABLE mcp_servers (
  id          TEXT PRIMARY KEY,
  tenant_id   TEXT NOT NULL,
  owner_id    TEXT NOT NULL DEFAULT '',
  name        TEXT NOT NULL,
  transport   TEXT NOT NULL CHECK (transport IN ('stdio', 'streamable_http')),
  command     TEXT,
  args_json   TEXT NOT NULL DEFAULT '[]',
  env_json    TEXT NOT NULL DEFAULT '{}',
  url         TEXT,
  headers_json TEXT NOT NULL DEFAULT '{}',
  trusted     INTEGER NOT NULL DEFAULT 0,
  created_by  TEXT,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX mcp_servers_tenant ON mcp_servers (tenant_id, owner_id);

-- A user's opt-out of a tenant server (its tools are not offered to them).
CREATE TABLE mcp_opt_outs (
  tenant_id  TEXT NOT NULL,
  user_id    TEXT NOT NULL,
  server_id  TEXT NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, user_id, server_id)
);

-- Plugins (issue 17 item 4): who sees a tool group (`builtin`, `sandbox`, `knowledge`, `memory`,
-- `mcp:<id>`). No row = everyone; else a caller with one of the roles or one of the groups.
CREATE TABLE plugin_visibility (
  tenant_id  TEXT NOT NULL,
  plugin     TEXT NOT NULL,
  roles_json TEXT NOT NULL DEFAULT '[]',
  groups_json TEXT NOT NULL DEFAULT '[]',
  updated_at TEXT NOT NULL,
  updated_by TEXT,
  PRIMARY KEY (tenant_id, plugin)
);
