-- Memory store (spec "Memory"). Scope: tenant and user combined as scope_key `{tenant_id}:{user_id}`;
-- agent and session narrow. Sparse search over FTS5 (analysed terms); vectors for exact cosine
-- within a scope (scopes are small, so no ANN index is needed).

CREATE TABLE memories (
  rid              INTEGER PRIMARY KEY,
  id               TEXT NOT NULL UNIQUE,          -- ULID
  tenant_id        TEXT NOT NULL,
  user_id          TEXT NOT NULL,
  scope_key        TEXT NOT NULL,                  -- tenant_id || ':' || user_id
  agent_id         TEXT,
  session_id       TEXT,
  memory_type      TEXT NOT NULL CHECK (memory_type IN ('user', 'feedback', 'project', 'reference')),
  content          TEXT NOT NULL,
  content_key      TEXT NOT NULL,                  -- normalised content, for exact-duplicate checks
  pinned           INTEGER NOT NULL DEFAULT 0,
  expires_at       TEXT,
  source           TEXT,
  why_stored       TEXT,
  last_recalled_at TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  embedded         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX memories_scope ON memories (scope_key, created_at DESC, rid DESC);
CREATE INDEX memories_key ON memories (scope_key, content_key);
CREATE INDEX memories_expiry ON memories (expires_at) WHERE expires_at IS NOT NULL;

CREATE VIRTUAL TABLE memories_fts USING fts5 (body, tokenize = 'unicode61', content = '', contentless_delete = 1);

CREATE TABLE memory_vectors (
  rid INTEGER PRIMARY KEY,
  vec BLOB NOT NULL
);

-- Every change, for the user's own record of what was stored and forgotten.
CREATE TABLE memory_history (
  id             INTEGER PRIMARY KEY,
  memory_id      TEXT NOT NULL,
  tenant_id      TEXT NOT NULL,
  user_id        TEXT NOT NULL,
  event          TEXT NOT NULL,                    -- ADD UPDATE DELETE FORGET MERGE EXPIRE
  actor_id       TEXT NOT NULL,
  user_initiated INTEGER NOT NULL DEFAULT 0,
  old_content    TEXT,
  new_content    TEXT,
  reason         TEXT,
  at             TEXT NOT NULL
);
CREATE INDEX memory_history_memory ON memory_history (memory_id);

CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
