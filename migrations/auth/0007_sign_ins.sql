-- Auth service, issue 15 item 5: who signed in how (Admin -> Identity). One row per completed sign-in;
-- no secrets (no password, code, token or client secret). Kept for SIGN_IN_KEEP_DAYS (pruned by auth).
CREATE TABLE sign_ins (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  at             INTEGER NOT NULL,                     -- Unix ms
  user_id        TEXT NOT NULL,
  email          TEXT,
  method         TEXT NOT NULL,                        -- password | directory | upstream_oidc | mobile | installer_handoff
  second_factor  TEXT,                                 -- push | totp | recovery_code | enroll, or NULL
  issuer         TEXT,
  client_id      TEXT,
  client_ip      TEXT
) STRICT;
CREATE INDEX sign_ins_at ON sign_ins (at DESC, id DESC);
