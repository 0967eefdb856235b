-- Inference router on PostgreSQL (issue 21 item 1): the twins of migrations/inference-router/0001_init.sql
-- and 0002_egress_allowlist.sql. SQLite's COLLATE NOCASE uniqueness is a unique index on lower(...);
-- sorted text uses COLLATE "C" (byte order, as SQLite's BINARY). API keys are NOT here (secret store).

CREATE TABLE providers (
  id          TEXT COLLATE "C" PRIMARY KEY,
  name        TEXT NOT NULL,
  base_url    TEXT NOT NULL,
  adapter     TEXT NOT NULL CHECK (adapter IN ('chat_completions', 'responses')),
  models      TEXT NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(models::jsonb) = 'array'),
  has_key     INTEGER NOT NULL DEFAULT 0 CHECK (has_key IN (0, 1)),
  created_at  TEXT COLLATE "C" NOT NULL,
  updated_at  TEXT NOT NULL,
  probed_at   TEXT
);
CREATE UNIQUE INDEX providers_name_nocase ON providers (lower(name));

CREATE TABLE role_targets (
  role        TEXT COLLATE "C" NOT NULL,
  position    INTEGER NOT NULL,
  provider_id TEXT NOT NULL,
  model       TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  PRIMARY KEY (role, position)
);
CREATE INDEX role_targets_provider ON role_targets (provider_id);

CREATE TABLE egress_allowlist (
  id          TEXT COLLATE "C" PRIMARY KEY,
  destination TEXT NOT NULL,
  created_at  TEXT COLLATE "C" NOT NULL,
  created_by  TEXT
);
CREATE UNIQUE INDEX egress_allowlist_destination_nocase ON egress_allowlist (lower(destination));
