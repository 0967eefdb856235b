-- Agent runtime store: chat sessions and their messages, folders, tool approvals and tool policies
-- (spec "Agent runtime surfaces": /v1/sessions, /v1/folders, /v1/user/approvals, /v1/admin/approvals,
-- /v1/admin/policies/*). Every row is scoped by tenant and owner.

CREATE TABLE folders (
  id          TEXT PRIMARY KEY,
  tenant_id   TEXT NOT NULL,
  user_id     TEXT NOT NULL,
  name        TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX folders_owner ON folders (tenant_id, user_id, name);

CREATE TABLE sessions (
  id                      TEXT PRIMARY KEY,
  tenant_id               TEXT NOT NULL,
  user_id                 TEXT NOT NULL,
  agent_id                TEXT NOT NULL,
  title                   TEXT,
  title_source            TEXT NOT NULL DEFAULT 'none',   -- none | fallback | generated | user
  folder_id               TEXT REFERENCES folders (id) ON DELETE SET NULL,
  branched_from_session   TEXT,
  branched_from_message   TEXT,
  message_count           INTEGER NOT NULL DEFAULT 0,
  created_at              TEXT NOT NULL,
  updated_at              TEXT NOT NULL
);
CREATE INDEX sessions_owner ON sessions (tenant_id, user_id, updated_at DESC, id DESC);
CREATE INDEX sessions_folder ON sessions (folder_id);

CREATE TABLE messages (
  id            TEXT PRIMARY KEY,
  session_id    TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq           INTEGER NOT NULL,
  role          TEXT NOT NULL,            -- system | user | assistant | tool
  content       TEXT NOT NULL,            -- plain text (text parts joined for multimodal input)
  parts         TEXT,                     -- JSON content parts when multimodal, else NULL
  tool_calls    TEXT,                     -- JSON [{id, name, arguments}] on assistant messages
  tool_call_id  TEXT,
  name          TEXT,                     -- tool name on tool messages
  turn_id       TEXT,
  trace         TEXT,                     -- JSON processing_trace on final assistant messages
  receipt       TEXT,                     -- JSON receipt object on final assistant messages
  created_at    TEXT NOT NULL,
  UNIQUE (session_id, seq)
);

CREATE TABLE approvals (
  id           TEXT PRIMARY KEY,
  tenant_id    TEXT NOT NULL,
  user_id      TEXT NOT NULL,
  session_id   TEXT NOT NULL,
  agent_id     TEXT NOT NULL,
  turn_id      TEXT,
  tool         TEXT NOT NULL,
  call_id      TEXT NOT NULL,
  arguments    TEXT NOT NULL,
  status       TEXT NOT NULL,            -- pending | approved | rejected | expired | cancelled
  reason       TEXT,
  created_at   TEXT NOT NULL,
  expires_at   TEXT NOT NULL,
  decided_at   TEXT,
  decided_by   TEXT
);
CREATE INDEX approvals_owner ON approvals (tenant_id, user_id, status, created_at DESC);
CREATE INDEX approvals_tenant ON approvals (tenant_id, status, created_at DESC);

CREATE TABLE tool_policies (
  tenant_id   TEXT NOT NULL,
  agent_id    TEXT NOT NULL DEFAULT '',  -- '' = every agent of the tenant
  tool        TEXT NOT NULL,             -- tool name or '*'
  policy      TEXT NOT NULL,             -- auto | ask | deny
  updated_at  TEXT NOT NULL,
  updated_by  TEXT,
  PRIMARY KEY (tenant_id, agent_id, tool)
);
