-- MCP authorization (issue 17 item 3; MCP "Authorization"): per (tenant, user, server) the OAuth
-- client registration, tokens, PKCE verifier and discovery state, sealed (AES-256-GCM under the data
-- keyring, like secrets). `state` is the pending authorization's random handle, in clear so the
-- callback can find its row; it is single use and expires at state_expires_at (epoch ms).
CREATE TABLE mcp_oauth (
  tenant_id        TEXT NOT NULL,
  user_id          TEXT NOT NULL,
  server_id        TEXT NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,
  state            TEXT,
  state_expires_at INTEGER,
  authorized       INTEGER NOT NULL DEFAULT 0,
  key_id           TEXT NOT NULL,
  iv               BLOB NOT NULL,
  tag              BLOB NOT NULL,
  ciphertext       BLOB NOT NULL,
  updated_at       TEXT NOT NULL,
  PRIMARY KEY (tenant_id, user_id, server_id)
);
CREATE UNIQUE INDEX mcp_oauth_state ON mcp_oauth (state) WHERE state IS NOT NULL;
