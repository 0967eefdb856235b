-- Auth service: local accounts, rotating refresh tokens, login throttling, installer handoff.
-- Times: users.* are RFC 3339 UTC text; every other time column is Unix milliseconds.

CREATE TABLE users (
  id            TEXT PRIMARY KEY,                      -- ULID
  email         TEXT NOT NULL UNIQUE COLLATE NOCASE,   -- stored lower-cased
  display_name  TEXT NOT NULL,
  password_hash TEXT,                                  -- scrypt$N$r$p$salt_b64$hash_b64; NULL: no password login
  roles         TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(roles) AND json_type(roles) = 'array'),
  disabled      INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
) STRICT;

-- One row per refresh token ever issued; a family is one login session (the access token's `sid`).
CREATE TABLE refresh_tokens (
  jti         TEXT PRIMARY KEY,                        -- ULID
  token_hash  TEXT NOT NULL UNIQUE,                    -- sha256 hex of the opaque token
  family_id   TEXT NOT NULL,
  user_id     TEXT NOT NULL REFERENCES users(id),
  issued_at   INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  used_at     INTEGER,                                 -- set when rotated
  revoked_at  INTEGER                                  -- set for the whole family on reuse, disable, password change
) STRICT;
CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id);
CREATE INDEX refresh_tokens_user ON refresh_tokens(user_id);
CREATE INDEX refresh_tokens_expires ON refresh_tokens(expires_at);

-- Failed (and in-flight) password logins inside the throttle window.
CREATE TABLE login_failures (
  id       INTEGER PRIMARY KEY,
  account  TEXT NOT NULL,                              -- lower-cased username as typed
  ip       TEXT NOT NULL,
  at       INTEGER NOT NULL
) STRICT;
CREATE INDEX login_failures_account ON login_failures(account, at);
CREATE INDEX login_failures_ip ON login_failures(ip, at);
CREATE INDEX login_failures_at ON login_failures(at);

-- One-shot installer handoffs; only a sha256 of the id is kept, so a restart cannot resurrect a spent one.
CREATE TABLE installer_handoffs (
  id_hash     TEXT PRIMARY KEY,                        -- sha256 hex of the handoff UUID
  user_id     TEXT NOT NULL REFERENCES users(id),
  created_at  INTEGER NOT NULL,
  spent_at    INTEGER                                  -- exchanged (or superseded by a newer handoff)
) STRICT;
