-- Durable conversations (spec "Agent runtime surfaces": /v1/conversations; issue 13 item 4):
-- conversations shaped like OpenAI's Conversations API, their items (messages, function calls and
-- their outputs) in order, and the runs started over them. Every row is scoped by tenant and owner.

CREATE TABLE conversations (
  id          TEXT PRIMARY KEY,                 -- conv_<ulid>
  tenant_id   TEXT NOT NULL,
  user_id     TEXT NOT NULL,
  -- The chat session the conversation's turns run in (null until its first turn, or after the
  -- session was deleted: the next turn starts a new one).
  session_id  TEXT REFERENCES sessions (id) ON DELETE SET NULL,
  metadata    TEXT NOT NULL DEFAULT '{}',       -- JSON {string: string}
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX conversations_owner ON conversations (tenant_id, user_id, id DESC);
CREATE UNIQUE INDEX conversations_session ON conversations (session_id) WHERE session_id IS NOT NULL;

CREATE TABLE conversation_items (
  id               TEXT PRIMARY KEY,            -- msg_<ulid> | fc_<ulid> | fco_<ulid>
  conversation_id  TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  seq              INTEGER NOT NULL,
  type             TEXT NOT NULL,               -- message | function_call | function_call_output
  role             TEXT,                        -- message: user | assistant | system | developer
  content          TEXT,                        -- message: JSON content parts
  call_id          TEXT,                        -- function_call, function_call_output
  name             TEXT,                        -- function_call: tool name
  arguments        TEXT,                        -- function_call: JSON text
  output           TEXT,                        -- function_call_output
  status           TEXT NOT NULL,               -- completed | in_progress | incomplete
  excluded         INTEGER NOT NULL DEFAULT 0,  -- 1: the input guardrail excluded it; never sent to the model
  run_id           TEXT,                        -- the run that produced it
  turn_id          TEXT,
  created_at       TEXT NOT NULL,
  UNIQUE (conversation_id, seq)
);

CREATE TABLE conversation_runs (
  id               TEXT PRIMARY KEY,            -- run_<ulid>
  conversation_id  TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  tenant_id        TEXT NOT NULL,
  user_id          TEXT NOT NULL,
  agent_id         TEXT NOT NULL,
  status           TEXT NOT NULL,               -- queued | in_progress | completed | failed | cancelled
  turn_id          TEXT,
  model            TEXT,
  usage            TEXT,                        -- JSON {prompt_tokens, completion_tokens}
  receipt          TEXT,                        -- JSON receipt reference
  error_code       TEXT,
  error_message    TEXT,
  created_at       TEXT NOT NULL,
  started_at       TEXT,
  completed_at     TEXT
);
CREATE INDEX conversation_runs_conversation ON conversation_runs (conversation_id, id DESC);
CREATE INDEX conversation_runs_active ON conversation_runs (status) WHERE status IN ('queued', 'in_progress');
