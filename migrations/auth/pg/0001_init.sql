-- Auth service on PostgreSQL (issue 21 item 1): the twin of migrations/auth/0001..0007 (SQLite), in
-- schema `auth`. Same columns and text encodings (JSON stays TEXT, times are RFC 3339 TEXT or Unix ms
-- BIGINT as on SQLite), so values round-trip identically. SQLite's 0/1 flags are BOOLEAN here.
-- Sorted or compared text uses COLLATE "C" (byte order, as SQLite's BINARY). Emails are stored
-- lower-cased, so SQLite's COLLATE NOCASE uniqueness is a plain UNIQUE on the lower-cased value.

CREATE TABLE users (
  id            TEXT COLLATE "C" PRIMARY KEY,
  email         TEXT COLLATE "C" NOT NULL UNIQUE CHECK (email = lower(email)),
  display_name  TEXT NOT NULL,
  password_hash TEXT,
  roles         TEXT NOT NULL DEFAULT '[]' CHECK (json_typeof(roles::json) = 'array'),
  disabled      BOOLEAN NOT NULL DEFAULT false,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);

CREATE TABLE refresh_tokens (
  jti         TEXT COLLATE "C" PRIMARY KEY,
  token_hash  TEXT NOT NULL UNIQUE,
  family_id   TEXT NOT NULL,
  user_id     TEXT NOT NULL REFERENCES users(id),
  issued_at   BIGINT NOT NULL,
  expires_at  BIGINT NOT NULL,
  used_at     BIGINT,
  revoked_at  BIGINT
);
CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id);
CREATE INDEX refresh_tokens_user ON refresh_tokens(user_id);
CREATE INDEX refresh_tokens_expires ON refresh_tokens(expires_at);

CREATE TABLE login_failures (
  id       BIGSERIAL PRIMARY KEY,
  account  TEXT NOT NULL,
  ip       TEXT NOT NULL,
  at       BIGINT NOT NULL
);
CREATE INDEX login_failures_account ON login_failures(account, at);
CREATE INDEX login_failures_ip ON login_failures(ip, at);
CREATE INDEX login_failures_at ON login_failures(at);

CREATE TABLE installer_handoffs (
  id_hash     TEXT PRIMARY KEY,
  user_id     TEXT NOT NULL REFERENCES users(id),
  created_at  BIGINT NOT NULL,
  spent_at    BIGINT
);

CREATE TABLE login_throttle (
  account   TEXT NOT NULL,
  source    TEXT NOT NULL,
  failures  INTEGER NOT NULL CHECK (failures >= 0),
  last_at   BIGINT NOT NULL,
  PRIMARY KEY (account, source)
);
CREATE INDEX login_throttle_last ON login_throttle(last_at);

-- `seq` never goes back, even across pruning (SQLite: AUTOINCREMENT; here a sequence). A sequence
-- also advances for an insert that rolls back, so `latest()` reads `token_revocations_high`, which
-- the inserting statement raises in the same transaction (rolled back with it, as sqlite_sequence is).
CREATE SEQUENCE token_revocations_seq;
CREATE TABLE token_revocations (
  seq         BIGINT PRIMARY KEY DEFAULT nextval('token_revocations_seq'),
  subject     TEXT NOT NULL,
  session_id  TEXT,
  revoked_at  BIGINT NOT NULL
);
ALTER SEQUENCE token_revocations_seq OWNED BY token_revocations.seq;
CREATE TABLE token_revocations_high (
  id   INTEGER PRIMARY KEY CHECK (id = 1),
  seq  BIGINT NOT NULL
);
INSERT INTO token_revocations_high (id, seq) VALUES (1, 0);
CREATE INDEX token_revocations_at ON token_revocations(revoked_at);

CREATE TABLE devices (
  id                   TEXT COLLATE "C" PRIMARY KEY,
  user_id              TEXT NOT NULL REFERENCES users(id),
  name                 TEXT NOT NULL,
  public_jwk           TEXT NOT NULL CHECK (public_jwk::json IS NOT NULL),
  jwk_thumbprint       TEXT NOT NULL UNIQUE,
  totp_secret          TEXT NOT NULL,
  totp_last_step       BIGINT,
  current_refresh_jti  TEXT,
  state                TEXT NOT NULL CHECK (state IN ('paired', 'revoked')),
  created_at           BIGINT NOT NULL,
  last_seen_at         BIGINT,
  revoked_at           BIGINT
);
CREATE INDEX devices_user ON devices(user_id, state);

CREATE TABLE enrollments (
  id            TEXT PRIMARY KEY,
  user_id       TEXT NOT NULL REFERENCES users(id),
  nonce         TEXT NOT NULL,
  challenge_id  TEXT,
  created_at    BIGINT NOT NULL,
  expires_at    BIGINT NOT NULL,
  used_at       BIGINT,
  device_id     TEXT
);
CREATE INDEX enrollments_user ON enrollments(user_id, expires_at);

CREATE TABLE login_challenges (
  id             TEXT COLLATE "C" PRIMARY KEY,
  user_id        TEXT NOT NULL REFERENCES users(id),
  number_match   INTEGER NOT NULL CHECK (number_match BETWEEN 10 AND 99),
  numbers        TEXT NOT NULL CHECK (numbers::json IS NOT NULL),
  methods        TEXT NOT NULL CHECK (methods::json IS NOT NULL),
  client_ip      TEXT NOT NULL,
  user_agent     TEXT NOT NULL,
  state          TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'released', 'expired')),
  outcome        TEXT,
  device_id      TEXT,
  code_failures  INTEGER NOT NULL DEFAULT 0,
  created_at     BIGINT NOT NULL,
  expires_at     BIGINT NOT NULL,
  answered_at    BIGINT
);
CREATE INDEX login_challenges_user ON login_challenges(user_id, created_at);
CREATE INDEX login_challenges_state ON login_challenges(state, expires_at);

CREATE TABLE recovery_codes (
  user_id     TEXT NOT NULL REFERENCES users(id),
  code_hash   TEXT NOT NULL,
  created_at  BIGINT NOT NULL,
  used_at     BIGINT,
  PRIMARY KEY (user_id, code_hash)
);

CREATE TABLE device_proof_jtis (
  device_id   TEXT NOT NULL,
  jti         TEXT NOT NULL,
  expires_at  BIGINT NOT NULL,
  PRIMARY KEY (device_id, jti)
);
CREATE INDEX device_proof_jtis_exp ON device_proof_jtis(expires_at);

CREATE TABLE second_factor_policy (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  enforced    BOOLEAN NOT NULL,
  updated_at  BIGINT NOT NULL,
  updated_by  TEXT NOT NULL
);

CREATE TABLE directory_accounts (
  user_id    TEXT PRIMARY KEY REFERENCES users(id),
  dn         TEXT NOT NULL,
  username   TEXT NOT NULL,
  groups     TEXT NOT NULL CHECK (groups::json IS NOT NULL),
  synced_at  TEXT NOT NULL
);

CREATE TABLE idp_models (
  model        TEXT NOT NULL,
  id           TEXT NOT NULL,
  payload      TEXT NOT NULL CHECK (payload::json IS NOT NULL),
  grant_id     TEXT,
  uid          TEXT,
  user_code    TEXT,
  expires_at   BIGINT,
  consumed_at  BIGINT,
  PRIMARY KEY (model, id)
);
CREATE INDEX idp_models_grant ON idp_models (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX idp_models_uid ON idp_models (model, uid) WHERE uid IS NOT NULL;
CREATE INDEX idp_models_user_code ON idp_models (model, user_code) WHERE user_code IS NOT NULL;
CREATE INDEX idp_models_expires ON idp_models (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE upstream_idps (
  alias              TEXT COLLATE "C" PRIMARY KEY,
  issuer             TEXT NOT NULL,
  client_id          TEXT NOT NULL,
  client_secret_enc  TEXT NOT NULL,
  scopes             TEXT NOT NULL CHECK (scopes::json IS NOT NULL),
  claims             TEXT NOT NULL CHECK (claims::json IS NOT NULL),
  display_name       TEXT,
  enabled            BOOLEAN NOT NULL DEFAULT true,
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL
);

CREATE TABLE upstream_links (
  upstream_iss        TEXT NOT NULL,
  upstream_sub        TEXT NOT NULL,
  user_id             TEXT NOT NULL REFERENCES users(id),
  alias               TEXT NOT NULL,
  preferred_username  TEXT,
  groups              TEXT NOT NULL DEFAULT '[]' CHECK (groups::json IS NOT NULL),
  created_at          TEXT NOT NULL,
  last_login_at       TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (upstream_iss, upstream_sub)
);
CREATE INDEX upstream_links_user ON upstream_links (user_id);

CREATE TABLE upstream_broker_states (
  state            TEXT PRIMARY KEY,
  nonce            TEXT NOT NULL,
  code_verifier    TEXT NOT NULL,
  interaction_uid  TEXT NOT NULL,
  alias            TEXT NOT NULL,
  expires_at       BIGINT NOT NULL,
  used_at          BIGINT
);
CREATE INDEX upstream_broker_states_expiry ON upstream_broker_states (expires_at);

CREATE TABLE sign_ins (
  id             BIGSERIAL PRIMARY KEY,
  at             BIGINT NOT NULL,
  user_id        TEXT NOT NULL,
  email          TEXT,
  method         TEXT COLLATE "C" NOT NULL,
  second_factor  TEXT,
  issuer         TEXT,
  client_id      TEXT,
  client_ip      TEXT
);
CREATE INDEX sign_ins_at ON sign_ins (at DESC, id DESC);
