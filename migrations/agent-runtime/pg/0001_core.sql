-- Agent runtime on PostgreSQL, core tables (issue 21 item 1): the twin of migrations/agent-runtime/
-- 0001..0007 (SQLite), in schema `agent_runtime`. Same columns and text encodings (JSON stays TEXT,
-- times are ISO 8601 TEXT, 0/1 flags stay INTEGER), so values round-trip identically. Every text
-- column is COLLATE "C" (byte order, as SQLite's BINARY), so ORDER BY and keyset cursors match.
-- The integration tables (agents, skills, MCP, OAuth, webhooks, connectors) are in 0002.

-- 0001: sessions and messages, folders, approvals, tool policies.
CREATE TABLE folders (
  id          TEXT COLLATE "C" PRIMARY KEY,
  tenant_id   TEXT COLLATE "C" NOT NULL,
  user_id     TEXT COLLATE "C" NOT NULL,
  name        TEXT COLLATE "C" NOT NULL,
  created_at  TEXT COLLATE "C" NOT NULL,
  updated_at  TEXT COLLATE "C" NOT NULL
);
CREATE INDEX folders_owner ON folders (tenant_id, user_id, name);

CREATE TABLE sessions (
  id                      TEXT COLLATE "C" PRIMARY KEY,
  tenant_id               TEXT COLLATE "C" NOT NULL,
  user_id                 TEXT COLLATE "C" NOT NULL,
  agent_id                TEXT COLLATE "C" NOT NULL,
  title                   TEXT COLLATE "C",
  title_source            TEXT COLLATE "C" NOT NULL DEFAULT 'none',
  folder_id               TEXT COLLATE "C" REFERENCES folders (id) ON DELETE SET NULL,
  branched_from_session   TEXT COLLATE "C",
  branched_from_message   TEXT COLLATE "C",
  message_count           INTEGER NOT NULL DEFAULT 0,
  created_at              TEXT COLLATE "C" NOT NULL,
  updated_at              TEXT COLLATE "C" NOT NULL
);
CREATE INDEX sessions_owner ON sessions (tenant_id, user_id, updated_at DESC, id DESC);
CREATE INDEX sessions_folder ON sessions (folder_id);

CREATE TABLE messages (
  id            TEXT COLLATE "C" PRIMARY KEY,
  session_id    TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq           INTEGER NOT NULL,
  role          TEXT COLLATE "C" NOT NULL,
  content       TEXT COLLATE "C" NOT NULL,
  parts         TEXT COLLATE "C",
  tool_calls    TEXT COLLATE "C",
  tool_call_id  TEXT COLLATE "C",
  name          TEXT COLLATE "C",
  turn_id       TEXT COLLATE "C",
  trace         TEXT COLLATE "C",
  receipt       TEXT COLLATE "C",
  created_at    TEXT COLLATE "C" NOT NULL,
  UNIQUE (session_id, seq)
);

CREATE TABLE approvals (
  id           TEXT COLLATE "C" PRIMARY KEY,
  tenant_id    TEXT COLLATE "C" NOT NULL,
  user_id      TEXT COLLATE "C" NOT NULL,
  session_id   TEXT COLLATE "C" NOT NULL,
  agent_id     TEXT COLLATE "C" NOT NULL,
  turn_id      TEXT COLLATE "C",
  tool         TEXT COLLATE "C" NOT NULL,
  call_id      TEXT COLLATE "C" NOT NULL,
  arguments    TEXT COLLATE "C" NOT NULL,
  status       TEXT COLLATE "C" NOT NULL,
  reason       TEXT COLLATE "C",
  created_at   TEXT COLLATE "C" NOT NULL,
  expires_at   TEXT COLLATE "C" NOT NULL,
  decided_at   TEXT COLLATE "C",
  decided_by   TEXT COLLATE "C"
);
CREATE INDEX approvals_owner ON approvals (tenant_id, user_id, status, created_at DESC);
CREATE INDEX approvals_tenant ON approvals (tenant_id, status, created_at DESC);
CREATE INDEX approvals_pending ON approvals (status) WHERE status = 'pending';

CREATE TABLE tool_policies (
  tenant_id   TEXT COLLATE "C" NOT NULL,
  agent_id    TEXT COLLATE "C" NOT NULL DEFAULT '',
  tool        TEXT COLLATE "C" NOT NULL,
  policy      TEXT COLLATE "C" NOT NULL,
  updated_at  TEXT COLLATE "C" NOT NULL,
  updated_by  TEXT COLLATE "C",
  PRIMARY KEY (tenant_id, agent_id, tool)
);

-- 0002: notifications, with per-user counters kept by triggers in the row change's transaction.
CREATE TABLE notifications (
  id               TEXT COLLATE "C" PRIMARY KEY,
  tenant_id        TEXT COLLATE "C" NOT NULL,
  user_id          TEXT COLLATE "C" NOT NULL,
  kind             TEXT COLLATE "C" NOT NULL,
  title            TEXT COLLATE "C" NOT NULL,
  body             TEXT COLLATE "C",
  payload          TEXT COLLATE "C",
  producer         TEXT COLLATE "C" NOT NULL,
  idempotency_key  TEXT COLLATE "C",
  read_at          TEXT COLLATE "C",
  created_at       TEXT COLLATE "C" NOT NULL
);
CREATE INDEX notifications_inbox ON notifications (tenant_id, user_id, id DESC);
CREATE INDEX notifications_unread ON notifications (tenant_id, user_id, read_at);
CREATE INDEX notifications_eviction ON notifications (tenant_id, user_id, (read_at IS NULL), id);
CREATE UNIQUE INDEX notifications_idempotency ON notifications (tenant_id, user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

CREATE TABLE notification_counters (
  tenant_id  TEXT COLLATE "C" NOT NULL,
  user_id    TEXT COLLATE "C" NOT NULL,
  total      INTEGER NOT NULL DEFAULT 0,
  unread     INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, user_id)
);

CREATE FUNCTION notifications_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO notification_counters AS c (tenant_id, user_id, total, unread)
    VALUES (NEW.tenant_id, NEW.user_id, 1, (NEW.read_at IS NULL)::int)
    ON CONFLICT (tenant_id, user_id) DO UPDATE SET total = c.total + 1, unread = c.unread + (NEW.read_at IS NULL)::int;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE notification_counters SET total = total - 1, unread = unread - (OLD.read_at IS NULL)::int
    WHERE tenant_id = OLD.tenant_id AND user_id = OLD.user_id;
  ELSIF (OLD.read_at IS NULL) <> (NEW.read_at IS NULL) THEN
    UPDATE notification_counters SET unread = unread + (NEW.read_at IS NULL)::int - (OLD.read_at IS NULL)::int
    WHERE tenant_id = OLD.tenant_id AND user_id = OLD.user_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER notifications_counted AFTER INSERT OR DELETE OR UPDATE OF read_at ON notifications
  FOR EACH ROW EXECUTE FUNCTION notifications_count();

-- 0003: user profiles, drafts, dismissals; user and tenant secrets (AES-256-GCM ciphertext only).
CREATE TABLE user_profiles (
  tenant_id        TEXT COLLATE "C" NOT NULL,
  user_id          TEXT COLLATE "C" NOT NULL,
  display_name     TEXT COLLATE "C",
  timezone         TEXT COLLATE "C",
  timezone_source  TEXT COLLATE "C",
  language         TEXT COLLATE "C",
  preferences      TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  created_at       TEXT COLLATE "C" NOT NULL,
  updated_at       TEXT COLLATE "C",
  PRIMARY KEY (tenant_id, user_id)
);

CREATE TABLE profile_drafts (
  tenant_id   TEXT COLLATE "C" NOT NULL,
  user_id     TEXT COLLATE "C" NOT NULL,
  id          TEXT COLLATE "C" NOT NULL,
  changes     TEXT COLLATE "C" NOT NULL,
  session_id  TEXT COLLATE "C",
  turn_id     TEXT COLLATE "C",
  created_at  TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (tenant_id, user_id)
);

CREATE TABLE profile_dismissals (
  tenant_id     TEXT COLLATE "C" NOT NULL,
  user_id       TEXT COLLATE "C" NOT NULL,
  hash          TEXT COLLATE "C" NOT NULL,
  dismissed_at  TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (tenant_id, user_id, hash)
);

CREATE TABLE secrets (
  tenant_id    TEXT COLLATE "C" NOT NULL,
  user_id      TEXT COLLATE "C" NOT NULL,
  name         TEXT COLLATE "C" NOT NULL,
  description  TEXT COLLATE "C",
  key_id       TEXT COLLATE "C" NOT NULL,
  iv           BYTEA NOT NULL,
  tag          BYTEA NOT NULL,
  ciphertext   BYTEA NOT NULL,
  created_at   TEXT COLLATE "C" NOT NULL,
  updated_at   TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (tenant_id, user_id, name)
);

-- 0004: durable conversations, their items and runs.
CREATE TABLE conversations (
  id          TEXT COLLATE "C" PRIMARY KEY,
  tenant_id   TEXT COLLATE "C" NOT NULL,
  user_id     TEXT COLLATE "C" NOT NULL,
  session_id  TEXT COLLATE "C" REFERENCES sessions (id) ON DELETE SET NULL,
  metadata    TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  created_at  TEXT COLLATE "C" NOT NULL,
  updated_at  TEXT COLLATE "C" NOT NULL
);
CREATE INDEX conversations_owner ON conversations (tenant_id, user_id, id DESC);
CREATE UNIQUE INDEX conversations_session ON conversations (session_id) WHERE session_id IS NOT NULL;

CREATE TABLE conversation_items (
  id               TEXT COLLATE "C" PRIMARY KEY,
  conversation_id  TEXT COLLATE "C" NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  seq              INTEGER NOT NULL,
  type             TEXT COLLATE "C" NOT NULL,
  role             TEXT COLLATE "C",
  content          TEXT COLLATE "C",
  call_id          TEXT COLLATE "C",
  name             TEXT COLLATE "C",
  arguments        TEXT COLLATE "C",
  output           TEXT COLLATE "C",
  status           TEXT COLLATE "C" NOT NULL,
  excluded         INTEGER NOT NULL DEFAULT 0,
  run_id           TEXT COLLATE "C",
  turn_id          TEXT COLLATE "C",
  created_at       TEXT COLLATE "C" NOT NULL,
  UNIQUE (conversation_id, seq)
);

CREATE TABLE conversation_runs (
  id               TEXT COLLATE "C" PRIMARY KEY,
  conversation_id  TEXT COLLATE "C" NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  tenant_id        TEXT COLLATE "C" NOT NULL,
  user_id          TEXT COLLATE "C" NOT NULL,
  agent_id         TEXT COLLATE "C" NOT NULL,
  status           TEXT COLLATE "C" NOT NULL,
  turn_id          TEXT COLLATE "C",
  model            TEXT COLLATE "C",
  usage            TEXT COLLATE "C",
  receipt          TEXT COLLATE "C",
  error_code       TEXT COLLATE "C",
  error_message    TEXT COLLATE "C",
  created_at       TEXT COLLATE "C" NOT NULL,
  started_at       TEXT COLLATE "C",
  completed_at     TEXT COLLATE "C"
);
CREATE INDEX conversation_runs_conversation ON conversation_runs (conversation_id, id DESC);
CREATE INDEX conversation_runs_active ON conversation_runs (status) WHERE status IN ('queued', 'in_progress');

-- 0005 + 0007: context records; deleting a session deletes the records of its turns.
CREATE TABLE context_records (
  turn_id       TEXT COLLATE "C" PRIMARY KEY,
  tenant_id     TEXT COLLATE "C" NOT NULL,
  user_id       TEXT COLLATE "C" NOT NULL,
  session_id    TEXT COLLATE "C" NOT NULL,
  agent_id      TEXT COLLATE "C" NOT NULL,
  status        TEXT COLLATE "C" NOT NULL,
  total_tokens  INTEGER NOT NULL,
  created_at    TEXT COLLATE "C" NOT NULL,
  record        TEXT COLLATE "C" NOT NULL
);
CREATE INDEX context_records_by_user ON context_records (tenant_id, user_id, created_at, turn_id);
CREATE INDEX context_records_session ON context_records (session_id);

CREATE FUNCTION sessions_delete_context_records() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM context_records WHERE session_id = OLD.id;
  RETURN NULL;
END $$;
CREATE TRIGGER sessions_delete_context_records AFTER DELETE ON sessions
  FOR EACH ROW EXECUTE FUNCTION sessions_delete_context_records();

-- 0006: permission profiles and turn statistics.
CREATE TABLE permission_profiles (
  id          TEXT COLLATE "C" PRIMARY KEY,
  tenant_id   TEXT COLLATE "C" NOT NULL,
  name        TEXT COLLATE "C" NOT NULL,
  roles       TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  groups      TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  agents      TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  tools       TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  knowledge   TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  created_at  TEXT COLLATE "C" NOT NULL,
  updated_at  TEXT COLLATE "C" NOT NULL,
  updated_by  TEXT COLLATE "C",
  UNIQUE (tenant_id, name)
);

CREATE TABLE turn_stats (
  id                 TEXT COLLATE "C" PRIMARY KEY,
  turn_id            TEXT COLLATE "C",
  tenant_id          TEXT COLLATE "C" NOT NULL,
  agent_id           TEXT COLLATE "C" NOT NULL,
  user_id            TEXT COLLATE "C" NOT NULL,
  session_id         TEXT COLLATE "C" NOT NULL,
  status             TEXT COLLATE "C" NOT NULL,
  error_code         TEXT COLLATE "C",
  error_message      TEXT COLLATE "C",
  guard_unavailable  INTEGER NOT NULL DEFAULT 0,
  tool_calls         INTEGER NOT NULL DEFAULT 0,
  tool_errors        INTEGER NOT NULL DEFAULT 0,
  latency_ms         DOUBLE PRECISION NOT NULL,
  prompt_tokens      INTEGER NOT NULL DEFAULT 0,
  completion_tokens  INTEGER NOT NULL DEFAULT 0,
  started_at         TEXT COLLATE "C" NOT NULL,
  ended_at           TEXT COLLATE "C" NOT NULL,
  day                TEXT COLLATE "C" NOT NULL
);
CREATE INDEX turn_stats_tenant_time ON turn_stats (tenant_id, ended_at);
CREATE INDEX turn_stats_turn ON turn_stats (turn_id);

CREATE TABLE turn_tool_stats (
  stat_id    TEXT COLLATE "C" NOT NULL REFERENCES turn_stats (id) ON DELETE CASCADE,
  tenant_id  TEXT COLLATE "C" NOT NULL,
  agent_id   TEXT COLLATE "C" NOT NULL,
  tool       TEXT COLLATE "C" NOT NULL,
  status     TEXT COLLATE "C" NOT NULL,
  ended_at   TEXT COLLATE "C" NOT NULL
);
CREATE INDEX turn_tool_stats_tenant_time ON turn_tool_stats (tenant_id, ended_at);
