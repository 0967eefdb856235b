-- Context trace of the agent runtime (issue 13 item 5; spec "Agent runtime surfaces": /v1/context/*):
-- per chat turn, what was put in front of the model (prompt parts with their estimated tokens,
-- memories and knowledge chunks with scores, history kept or dropped) and the timed steps, written
-- when the turn ends. `record` is the JSON of `ContextRecord` (contracts/context.ts), bounded in size
-- by the runtime; the columns beside it serve the owner check and the overview's recent turns.
CREATE TABLE context_records (
  turn_id       TEXT PRIMARY KEY,        -- X-Svc-Turn-Id of the chat request
  tenant_id     TEXT NOT NULL,
  user_id       TEXT NOT NULL,
  session_id    TEXT NOT NULL,
  agent_id      TEXT NOT NULL,
  status        TEXT NOT NULL,           -- completed | blocked | failed
  total_tokens  INTEGER NOT NULL,
  created_at    TEXT NOT NULL,           -- ISO 8601 UTC, when the turn ended
  record        TEXT NOT NULL
);

-- The user's newest turns first (overview) and the oldest first (pruning beyond the per-user cap).
CREATE INDEX context_records_by_user ON context_records (tenant_id, user_id, created_at, turn_id);
