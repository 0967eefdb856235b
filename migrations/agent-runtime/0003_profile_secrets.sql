-- User profiles, profile drafts and dismissals (spec "Agent runtime surfaces": /v1/user/profile and
-- sub-paths; "Identity headers": X-User-Timezone; issue 13 item 2), and user and tenant secrets
-- (/v1/user/secrets, /v1/admin/tenant-secrets; issue 13 item 3).

-- One profile per (tenant, user). `preferences` is a JSON array of strings. `timezone_source`
-- says who set the timezone: `header` (seeded from X-User-Timezone on first contact), `user`
-- (PUT, also when cleared) or `draft` (an accepted suggestion); NULL = never set, the only state
-- in which the header seeds it.
CREATE TABLE user_profiles (
  tenant_id        TEXT NOT NULL,
  user_id          TEXT NOT NULL,
  display_name     TEXT,
  timezone         TEXT,
  timezone_source  TEXT,
  language         TEXT,
  preferences      TEXT NOT NULL DEFAULT '[]',
  created_at       TEXT NOT NULL,
  updated_at       TEXT,
  PRIMARY KEY (tenant_id, user_id)
) WITHOUT ROWID;

-- The pending draft of a user (at most one; a later proposal is merged into it). `changes` is a
-- JSON array of {field, op, value}.
CREATE TABLE profile_drafts (
  tenant_id   TEXT NOT NULL,
  user_id     TEXT NOT NULL,
  id          TEXT NOT NULL,
  changes     TEXT NOT NULL,
  session_id  TEXT,
  turn_id     TEXT,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (tenant_id, user_id)
) WITHOUT ROWID;

-- Suggestions the user dismissed, by the sha256 of the normalised change: never proposed again.
CREATE TABLE profile_dismissals (
  tenant_id     TEXT NOT NULL,
  user_id       TEXT NOT NULL,
  hash          TEXT NOT NULL,
  dismissed_at  TEXT NOT NULL,
  PRIMARY KEY (tenant_id, user_id, hash)
) WITHOUT ROWID;

-- Secrets: `user_id` '' = a tenant secret. The value is AES-256-GCM ciphertext under the data key
-- named by `key_id` (a 96-bit random IV per row; AAD binds tenant, user and name), never plaintext.
CREATE TABLE secrets (
  tenant_id    TEXT NOT NULL,
  user_id      TEXT NOT NULL,
  name         TEXT NOT NULL,
  description  TEXT,
  key_id       TEXT NOT NULL,
  iv           BLOB NOT NULL,
  tag          BLOB NOT NULL,
  ciphertext   BLOB NOT NULL,
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL,
  PRIMARY KEY (tenant_id, user_id, name)
) WITHOUT ROWID;
