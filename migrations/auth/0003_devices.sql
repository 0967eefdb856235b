-- Auth service, issue 14: paired phones (the second factor), pairings, login challenges, recovery
-- codes, the device-proof replay cache and the second-factor policy. docs/mobile-2fa.md.
-- Times are Unix milliseconds.

-- A paired device: its public key (P-256 JWK), its offline-code secret, and the one live mobile
-- refresh token (`current_refresh_jti`, rotated by compare-and-swap; cleared on revocation).
CREATE TABLE devices (
  id                   TEXT PRIMARY KEY,                 -- ULID (the `kid` of its proofs, `did` of its tokens)
  user_id              TEXT NOT NULL REFERENCES users(id),
  name                 TEXT NOT NULL,
  public_jwk           TEXT NOT NULL CHECK (json_valid(public_jwk)),  -- {kty, crv, x, y}
  jwk_thumbprint       TEXT NOT NULL UNIQUE,             -- RFC 7638: one key pairs once
  totp_secret          TEXT NOT NULL,                    -- base32 (RFC 6238 secret shared with the phone)
  totp_last_step       INTEGER,                          -- last accepted time step: each step is usable once
  current_refresh_jti  TEXT,                             -- NULL once revoked
  state                TEXT NOT NULL CHECK (state IN ('paired', 'revoked')),
  created_at           INTEGER NOT NULL,
  last_seen_at         INTEGER,
  revoked_at           INTEGER
) STRICT;
CREATE INDEX devices_user ON devices(user_id, state);

-- A pairing: the enrollment token's `jti` and `nonce`. Single use (`used_at`), 2 minutes.
-- `challenge_id`: an enforced user's login challenge that offered this pairing.
CREATE TABLE enrollments (
  id            TEXT PRIMARY KEY,                        -- ULID = the token's jti
  user_id       TEXT NOT NULL REFERENCES users(id),
  nonce         TEXT NOT NULL,
  challenge_id  TEXT,
  created_at    INTEGER NOT NULL,
  expires_at    INTEGER NOT NULL,
  used_at       INTEGER,
  device_id     TEXT
) STRICT;
CREATE INDEX enrollments_user ON enrollments(user_id, expires_at);

-- Login challenges (spec "States and transitions": parked challenge). States:
-- pending -> approved -> released (the gateway took the tokens, once), pending -> denied,
-- pending -> expired (TTL passed, or a newer challenge of the user), pending -> released (a code).
CREATE TABLE login_challenges (
  id             TEXT PRIMARY KEY,                       -- ULID
  user_id        TEXT NOT NULL REFERENCES users(id),
  number_match   INTEGER NOT NULL CHECK (number_match BETWEEN 10 AND 99),
  numbers        TEXT NOT NULL CHECK (json_valid(numbers)),   -- the three the phone shows
  methods        TEXT NOT NULL CHECK (json_valid(methods)),
  client_ip      TEXT NOT NULL,
  user_agent     TEXT NOT NULL,
  state          TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'released', 'expired')),
  outcome        TEXT,                                   -- approve, deny, wrong_number, report, totp, recovery_code, codes_exhausted
  device_id      TEXT,                                   -- the device that answered, or whose code was used
  code_failures  INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL,
  answered_at    INTEGER
) STRICT;
CREATE INDEX login_challenges_user ON login_challenges(user_id, created_at);
CREATE INDEX login_challenges_state ON login_challenges(state, expires_at);

-- Recovery codes: ten per set, sha256 of the normalised code, single use. A new set replaces the old.
CREATE TABLE recovery_codes (
  user_id     TEXT NOT NULL REFERENCES users(id),
  code_hash   TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  used_at     INTEGER,
  PRIMARY KEY (user_id, code_hash)
) STRICT, WITHOUT ROWID;

-- Device-proof and answer `jti`s seen, kept until their `exp`: a replay is refused (DPoP-like, RFC 9449 §11.1).
CREATE TABLE device_proof_jtis (
  device_id   TEXT NOT NULL,
  jti         TEXT NOT NULL,
  expires_at  INTEGER NOT NULL,
  PRIMARY KEY (device_id, jti)
) STRICT, WITHOUT ROWID;
CREATE INDEX device_proof_jtis_exp ON device_proof_jtis(expires_at);

-- The admin's second-factor policy; no row: SVC_2FA_ENFORCED decides.
CREATE TABLE second_factor_policy (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  enforced    INTEGER NOT NULL CHECK (enforced IN (0, 1)),
  updated_at  INTEGER NOT NULL,
  updated_by  TEXT NOT NULL
) STRICT;
