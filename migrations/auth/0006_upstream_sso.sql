-- Auth service, issue 15 item 2: upstream SSO brokering to a company's own OpenID Connect provider.
-- Upstream IdPs an admin registered (`/v1/admin/sso/idps`). The client secret is stored encrypted
-- (AES-256-GCM, key in `<dataDir>/secrets/upstream-sso.key`) and is never returned by any route.
CREATE TABLE upstream_idps (
  alias              TEXT PRIMARY KEY,                      -- [a-z0-9][a-z0-9_-]{0,62}; part of the redirect URI
  issuer             TEXT NOT NULL,                         -- the upstream's issuer identifier (discovery base)
  client_id          TEXT NOT NULL,
  client_secret_enc  TEXT NOT NULL,                         -- base64url(iv | tag | ciphertext)
  scopes             TEXT NOT NULL CHECK (json_valid(scopes)),  -- JSON array, always with "openid"
  claims             TEXT NOT NULL CHECK (json_valid(claims)),  -- JSON {email, name, groups}: claim names to map
  display_name       TEXT,
  enabled            INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  created_at         TEXT NOT NULL,                         -- RFC 3339 UTC
  updated_at         TEXT NOT NULL
) STRICT;

-- Upstream identities linked to local accounts: (upstream_iss, upstream_sub) -> users.id.
CREATE TABLE upstream_links (
  upstream_iss        TEXT NOT NULL,
  upstream_sub        TEXT NOT NULL,
  user_id             TEXT NOT NULL REFERENCES users(id),
  alias               TEXT NOT NULL,                        -- the IdP it was last signed in through
  preferred_username  TEXT,
  groups              TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(groups)),
  created_at          TEXT NOT NULL,
  last_login_at       TEXT NOT NULL,
  PRIMARY KEY (upstream_iss, upstream_sub)
) STRICT;
CREATE INDEX upstream_links_user ON upstream_links (user_id);

-- Pending brokered sign-ins: the state sent upstream, its nonce and PKCE verifier, bound to one
-- interaction of the embedded IdP; single use (used_at), 10 minutes.
CREATE TABLE upstream_broker_states (
  state            TEXT PRIMARY KEY,                        -- sha256 hex of the random state (never the state itself)
  nonce            TEXT NOT NULL,
  code_verifier    TEXT NOT NULL,
  interaction_uid  TEXT NOT NULL,
  alias            TEXT NOT NULL,
  expires_at       INTEGER NOT NULL,                        -- unix ms
  used_at          INTEGER                                  -- unix ms, or NULL while pending
) STRICT;
CREATE INDEX upstream_broker_states_expiry ON upstream_broker_states (expires_at);
