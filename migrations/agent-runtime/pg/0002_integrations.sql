-- The runtime's integrations on PostgreSQL (issue 21 item 1): the twin of the SQLite migrations
-- 0008-0015 (agents and skills, MCP servers, opt-outs and plugin rules, OAuth integrations,
-- webhooks, knowledge connectors, skill files, MCP authorization), as they stand after 0015. Same
-- columns and text encodings (JSON as text, times as RFC 3339 text, sealed values as bytea, epoch
-- milliseconds as bigint), so rows round-trip identically. Stores: services/agent-runtime/src/store/pg/.

-- Agents (0008): configuration as JSON text.
CREATE TABLE agents (
  id          text NOT NULL,
  tenant_id   text NOT NULL,
  owner_id    text NOT NULL,
  scope       text NOT NULL CHECK (scope IN ('personal', 'tenant')),
  name        text NOT NULL,
  config_json text NOT NULL,
  created_at  text NOT NULL,
  updated_at  text NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX agents_owner ON agents (tenant_id, scope, owner_id);

-- Skills at their current version (0008, files 0013).
CREATE TABLE skills (
  id          text NOT NULL,
  tenant_id   text NOT NULL,
  owner_id    text NOT NULL,
  scope       text NOT NULL CHECK (scope IN ('personal', 'tenant')),
  name        text NOT NULL,
  description text NOT NULL,
  content     text NOT NULL,
  version     integer NOT NULL,
  sha256      text NOT NULL,
  created_at  text NOT NULL,
  updated_at  text NOT NULL,
  files_json  text NOT NULL DEFAULT '[]',
  PRIMARY KEY (tenant_id, id)
);
-- One name per scope and owner (tenant rows: per tenant); store/pg/skills.ts maps its violation to "name taken".
CREATE UNIQUE INDEX skills_name ON skills (tenant_id, scope, (CASE scope WHEN 'tenant' THEN '' ELSE owner_id END), name);

CREATE TABLE skill_versions (
  tenant_id   text NOT NULL,
  skill_id    text NOT NULL,
  version     integer NOT NULL,
  name        text NOT NULL,
  description text NOT NULL,
  content     text NOT NULL,
  sha256      text NOT NULL,
  created_by  text NOT NULL,
  created_at  text NOT NULL,
  files_json  text NOT NULL DEFAULT '[]',
  PRIMARY KEY (tenant_id, skill_id, version)
);

-- MCP servers (0009, pre-registered OAuth client 0015). `trusted` stays 0/1 as on SQLite.
CREATE TABLE mcp_servers (
  id                text PRIMARY KEY,
  tenant_id         text NOT NULL,
  owner_id          text NOT NULL DEFAULT '',
  name              text NOT NULL,
  transport         text NOT NULL CHECK (transport IN ('stdio', 'streamable_http')),
  command           text,
  args_json         text NOT NULL DEFAULT '[]',
  env_json          text NOT NULL DEFAULT '{}',
  url               text,
  headers_json      text NOT NULL DEFAULT '{}',
  trusted           integer NOT NULL DEFAULT 0,
  created_by        text,
  created_at        text NOT NULL,
  updated_at        text NOT NULL,
  oauth_client_json text
);
CREATE INDEX mcp_servers_tenant ON mcp_servers (tenant_id, owner_id);

CREATE TABLE mcp_opt_outs (
  tenant_id  text NOT NULL,
  user_id    text NOT NULL,
  server_id  text NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,
  created_at text NOT NULL,
  PRIMARY KEY (tenant_id, user_id, server_id)
);

-- Plugin visibility (0009).
CREATE TABLE plugin_visibility (
  tenant_id   text NOT NULL,
  plugin      text NOT NULL,
  roles_json  text NOT NULL DEFAULT '[]',
  groups_json text NOT NULL DEFAULT '[]',
  updated_at  text NOT NULL,
  updated_by  text,
  PRIMARY KEY (tenant_id, plugin)
);

-- Per-user OAuth integrations (0010).
CREATE TABLE oauth_providers (
  tenant_id              text NOT NULL,
  slug                   text NOT NULL,
  name                   text NOT NULL,
  issuer                 text,
  authorization_endpoint text NOT NULL,
  token_endpoint         text NOT NULL,
  revocation_endpoint    text,
  client_id              text NOT NULL,
  client_secret_ref      text NOT NULL,
  scopes_json            text NOT NULL DEFAULT '[]',
  created_at             text NOT NULL,
  updated_at             text NOT NULL,
  PRIMARY KEY (tenant_id, slug)
);

-- `seq` stands in for SQLite's rowid: the tie-break of a user's latest flow.
CREATE TABLE oauth_states (
  state_hash    text PRIMARY KEY,
  tenant_id     text NOT NULL,
  user_id       text NOT NULL,
  slug          text NOT NULL,
  code_verifier text NOT NULL,
  redirect_uri  text NOT NULL,
  created_at    text NOT NULL,
  expires_at    text NOT NULL,
  used_at       text,
  outcome       text,
  error         text,
  seq           bigserial NOT NULL
);
CREATE INDEX oauth_states_owner ON oauth_states (tenant_id, user_id, slug, created_at);

CREATE TABLE oauth_connections (
  tenant_id         text NOT NULL,
  user_id           text NOT NULL,
  slug              text NOT NULL,
  status            text NOT NULL CHECK (status IN ('connected', 'needs_reconnect')),
  scopes_json       text NOT NULL DEFAULT '[]',
  key_id            text NOT NULL,
  iv                bytea NOT NULL,
  tag               bytea NOT NULL,
  ciphertext        bytea NOT NULL,
  expires_at        text,
  lifetime_s        integer,
  connected_at      text NOT NULL,
  last_refreshed_at text,
  updated_at        text NOT NULL,
  PRIMARY KEY (tenant_id, user_id, slug)
);
CREATE INDEX oauth_connections_due ON oauth_connections (status, expires_at);

-- Signed webhooks (0011).
CREATE TABLE webhooks (
  id                text PRIMARY KEY,
  tenant_id         text NOT NULL,
  name              text NOT NULL,
  target_json       text NOT NULL,
  owner_id          text NOT NULL,
  owner_roles_json  text NOT NULL DEFAULT '[]',
  owner_groups_json text NOT NULL DEFAULT '[]',
  key_id            text NOT NULL,
  secret_iv         bytea NOT NULL,
  secret_tag        bytea NOT NULL,
  secret_ct         bytea NOT NULL,
  secret_set_at     text NOT NULL,
  created_at        text NOT NULL
);
CREATE INDEX webhooks_tenant ON webhooks (tenant_id, created_at);

CREATE TABLE webhook_deliveries (
  id              text PRIMARY KEY,
  tenant_id       text NOT NULL,
  hook_id         text NOT NULL,
  received_at     text NOT NULL,
  outcome         text NOT NULL CHECK (outcome IN ('accepted', 'rejected')),
  code            text,
  turn_id         text,
  notification_id text
);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (tenant_id, hook_id, received_at);

CREATE TABLE webhook_replays (
  hook_id    text NOT NULL,
  signature  text NOT NULL,
  expires_ms bigint NOT NULL,
  PRIMARY KEY (hook_id, signature)
);
CREATE INDEX webhook_replays_expiry ON webhook_replays (expires_ms);

-- Knowledge connectors (0012).
CREATE TABLE connectors (
  id                 text NOT NULL,
  tenant_id          text NOT NULL,
  kind               text NOT NULL,
  name               text NOT NULL,
  config_json        text NOT NULL,
  visibility_mode    text NOT NULL,
  audience_tags_json text NOT NULL,
  user_grants_json   text NOT NULL,
  schedule_minutes   integer,
  selected_json      text,
  owner_json         text NOT NULL,
  status             text NOT NULL,
  last_sync_at       text,
  last_error         text,
  created_at         text NOT NULL,
  updated_at         text NOT NULL,
  PRIMARY KEY (tenant_id, id)
);

CREATE TABLE connector_documents (
  tenant_id    text NOT NULL,
  connector_id text NOT NULL,
  path_or_uid  text NOT NULL,
  item_key     text NOT NULL,
  document_id  text,
  status       text NOT NULL,
  last_error   text,
  size         bigint,
  mtime_ms     bigint,
  sha256       text,
  synced_at    text NOT NULL,
  PRIMARY KEY (tenant_id, connector_id, path_or_uid)
);
CREATE INDEX connector_documents_item ON connector_documents (tenant_id, connector_id, item_key);

CREATE TABLE connector_jobs (
  id           text PRIMARY KEY,
  tenant_id    text NOT NULL,
  connector_id text,
  state        text NOT NULL,
  total        integer NOT NULL DEFAULT 0,
  done         integer NOT NULL DEFAULT 0,
  failed       integer NOT NULL DEFAULT 0,
  started_at   text,
  finished_at  text,
  error        text,
  created_at   text NOT NULL
);
CREATE INDEX connector_jobs_state ON connector_jobs (state);

-- MCP authorization (0014): the sealed record per (tenant, user, server); `state` single use.
CREATE TABLE mcp_oauth (
  tenant_id        text NOT NULL,
  user_id          text NOT NULL,
  server_id        text NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,
  state            text,
  state_expires_at bigint,
  authorized       integer NOT NULL DEFAULT 0,
  key_id           text NOT NULL,
  iv               bytea NOT NULL,
  tag              bytea NOT NULL,
  ciphertext       bytea NOT NULL,
  updated_at       text NOT NULL,
  PRIMARY KEY (tenant_id, user_id, server_id)
);
CREATE UNIQUE INDEX mcp_oauth_state ON mcp_oauth (state) WHERE state IS NOT NULL;
