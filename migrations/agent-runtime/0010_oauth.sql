-- Per-user OAuth integrations (issue 18 item 1): providers configured by admins (the client secret
-- is a tenant secret NAMED here, never its value), started flows (state hash -> PKCE verifier,
-- single use, 10 minutes), and each user's connection with its tokens sealed (AES-256-GCM).
CREATE TABLE oauth_providers (
  tenant_id              TEXT NOT NULL,
  slug                   TEXT NOT NULL,
  name                   TEXT NOT NULL,
  issuer                 TEXT,
  authorization_endpoint TEXT NOT NULL,
  token_endpoint         TEXT NOT NULL,
  revocation_endpoint    TEXT,
  client_id              TEXT NOT NULL,
  client_secret_ref      TEXT NOT NULL,
  scopes_json            TEXT NOT NULL DEFAULT '[]',
  created_at             TEXT NOT NULL,
  updated_at             TEXT NOT NULL,
  PRIMARY KEY (tenant_id, slug)
);

CREATE TABLE oauth_states (
  state_hash    TEXT PRIMARY KEY,
  tenant_id     TEXT NOT NULL,
  user_id       TEXT NOT NULL,
  slug          TEXT NOT NULL,
  code_verifier TEXT NOT NULL,
  redirect_uri  TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  expires_at    TEXT NOT NULL,
  used_at       TEXT,
  outcome       TEXT,
  error         TEXT
);
CREATE INDEX oauth_states_owner ON oauth_states (tenant_id, user_id, slug, created_at);

CREATE TABLE oauth_connections (
  tenant_id         TEXT NOT NULL,
  user_id           TEXT NOT NULL,
  slug              TEXT NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('connected', 'needs_reconnect')),
  scopes_json       TEXT NOT NULL DEFAULT '[]',
  key_id            TEXT NOT NULL,
  iv                BLOB NOT NULL,
  tag               BLOB NOT NULL,
  ciphertext        BLOB NOT NULL,
  expires_at        TEXT,
  lifetime_s        INTEGER,
  connected_at      TEXT NOT NULL,
  last_refreshed_at TEXT,
  updated_at        TEXT NOT NULL,
  PRIMARY KEY (tenant_id, user_id, slug)
);
CREATE INDEX oauth_connections_due ON oauth_connections (status, expires_at);
