-- Inference router: provider registry and model roles. API keys are NOT here (secret store).
-- Times are RFC 3339 UTC text.

CREATE TABLE providers (
  id          TEXT PRIMARY KEY,                     -- ULID
  name        TEXT NOT NULL UNIQUE COLLATE NOCASE,
  base_url    TEXT NOT NULL,                        -- normalised (no trailing slash, no endpoint suffix)
  adapter     TEXT NOT NULL CHECK (adapter IN ('chat_completions', 'responses')),
  models      TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(models) AND json_type(models) = 'array'),
  has_key     INTEGER NOT NULL DEFAULT 0 CHECK (has_key IN (0, 1)),
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  probed_at   TEXT
) STRICT;

-- Ordered targets of each role; position 0 is tried first. provider_id may be 'local' (not a row).
CREATE TABLE role_targets (
  role        TEXT NOT NULL,
  position    INTEGER NOT NULL,
  provider_id TEXT NOT NULL,
  model       TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  PRIMARY KEY (role, position)
) STRICT;
CREATE INDEX role_targets_provider ON role_targets (provider_id);
