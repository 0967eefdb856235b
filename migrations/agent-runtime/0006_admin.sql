-- Admin surfaces of the agent runtime (issue 13 item 8; spec "Agent runtime surfaces": /v1/admin/roles,
-- /v1/admin/agentops/*, /v1/admin/mission-control; "Roles and groups": permission_profiles).

-- Permission profiles: a profile applies when the caller's roles or groups intersect `roles` / `groups`;
-- effective access is the union of the applying profiles. JSON arrays as text.
CREATE TABLE permission_profiles (
  id          TEXT PRIMARY KEY,
  tenant_id   TEXT NOT NULL,
  name        TEXT NOT NULL,
  roles       TEXT NOT NULL DEFAULT '[]',   -- JSON string[]
  groups      TEXT NOT NULL DEFAULT '[]',   -- JSON string[]
  agents      TEXT NOT NULL DEFAULT '[]',   -- JSON string[]: agent ids ('*' = every agent)
  tools       TEXT NOT NULL DEFAULT '[]',   -- JSON string[]: tool names, 'prefix*' globs, '*'
  knowledge   TEXT NOT NULL DEFAULT '{}',   -- JSON {audiences?: string[], tags?: string[]}
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  updated_by  TEXT,
  UNIQUE (tenant_id, name)
);

-- One row per finished chat turn (AgentOps and the errors of mission control): recorded when the
-- engine's run ends. `day` is the UTC date of `started_at`.
CREATE TABLE turn_stats (
  id                 TEXT PRIMARY KEY,          -- the turn id (X-Svc-Turn-Id), or a local id when none
  turn_id            TEXT,
  tenant_id          TEXT NOT NULL,
  agent_id           TEXT NOT NULL,
  user_id            TEXT NOT NULL,
  session_id         TEXT NOT NULL,
  status             TEXT NOT NULL,             -- completed | blocked | failed
  error_code         TEXT,
  error_message      TEXT,
  guard_unavailable  INTEGER NOT NULL DEFAULT 0,
  tool_calls         INTEGER NOT NULL DEFAULT 0,
  tool_errors        INTEGER NOT NULL DEFAULT 0,
  latency_ms         REAL NOT NULL,
  prompt_tokens      INTEGER NOT NULL DEFAULT 0,
  completion_tokens  INTEGER NOT NULL DEFAULT 0,
  started_at         TEXT NOT NULL,
  ended_at           TEXT NOT NULL,
  day                TEXT NOT NULL
);
CREATE INDEX turn_stats_tenant_time ON turn_stats (tenant_id, ended_at);
CREATE INDEX turn_stats_turn ON turn_stats (turn_id);

-- Tool calls of those turns, for per-tool error rates.
CREATE TABLE turn_tool_stats (
  stat_id    TEXT NOT NULL REFERENCES turn_stats (id) ON DELETE CASCADE,
  tenant_id  TEXT NOT NULL,
  agent_id   TEXT NOT NULL,
  tool       TEXT NOT NULL,
  status     TEXT NOT NULL,                     -- ok | error | denied | invalid | not_approved
  ended_at   TEXT NOT NULL
);
CREATE INDEX turn_tool_stats_tenant_time ON turn_tool_stats (tenant_id, ended_at);
