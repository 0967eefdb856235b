-- Audit store (spec: "Audit log row", "Turn event", "Turn envelope", "Receipt").
-- audit_log and chain_head are append-only: triggers turn UPDATE and DELETE into no-ops, so a
-- buggy or hostile statement cannot rewrite history through SQL (the verifier still catches file edits).

CREATE TABLE audit_log (
  id             INTEGER PRIMARY KEY,          -- serial, assigned by the single writer
  tenant_id      TEXT    NOT NULL,
  seq            INTEGER NOT NULL,             -- 1..N per tenant
  timestamp      TEXT    NOT NULL,             -- RFC 3339 UTC, application side
  user_id        TEXT,
  action         TEXT    NOT NULL,
  resource_type  TEXT,
  resource_id    TEXT,
  detail_type    TEXT,
  detail         TEXT    NOT NULL,             -- JSON text
  previous_hash  TEXT    NOT NULL,
  signed_payload TEXT    NOT NULL,             -- JCS of the signed fields
  signature      TEXT    NOT NULL,             -- HMAC-SHA256 hex
  key_version    TEXT    NOT NULL,
  agent_id       TEXT,
  agent_chain    TEXT,                         -- JSON text or NULL
  delegated_by   TEXT,
  UNIQUE (tenant_id, seq)
);
CREATE INDEX audit_log_user ON audit_log (tenant_id, user_id, seq);
CREATE INDEX audit_log_action ON audit_log (tenant_id, action, seq);

CREATE TABLE chain_head (
  tenant_id     TEXT    NOT NULL,
  seq           INTEGER NOT NULL,
  audit_log_id  INTEGER NOT NULL,
  signature     TEXT    NOT NULL,
  previous_hash TEXT    NOT NULL,
  chain_hash    TEXT    NOT NULL,
  key_version   TEXT    NOT NULL,
  PRIMARY KEY (tenant_id, seq)
) WITHOUT ROWID;

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(IGNORE); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(IGNORE); END;
CREATE TRIGGER chain_head_no_update BEFORE UPDATE ON chain_head BEGIN SELECT RAISE(IGNORE); END;
CREATE TRIGGER chain_head_no_delete BEFORE DELETE ON chain_head BEGIN SELECT RAISE(IGNORE); END;

-- Turns: one row per (tenant, turn); carries the receipt state (pending -> sealed -> verified).
CREATE TABLE turns (
  tenant_id     TEXT    NOT NULL,
  turn_id       TEXT    NOT NULL,
  receipt_id    TEXT    NOT NULL,              -- ULID
  principal_id  TEXT    NOT NULL,              -- principal of the first event
  created_ms    INTEGER NOT NULL,              -- server time the first event arrived (watermark clock)
  terminal      TEXT,                          -- 'turn_sealed' | 'turn_failed' once one arrived
  status        TEXT    NOT NULL DEFAULT 'pending', -- receipt status
  sealed_at     TEXT,
  sealed_seq    INTEGER,                       -- audit seq of the anchor row
  verified_at   TEXT,
  verified_by   TEXT,
  PRIMARY KEY (tenant_id, turn_id)
) WITHOUT ROWID;
CREATE INDEX turns_open ON turns (status, created_ms) WHERE status = 'pending';
CREATE INDEX turns_sealed ON turns (tenant_id, sealed_seq) WHERE sealed_seq IS NOT NULL;

CREATE TABLE turn_events (
  tenant_id           TEXT    NOT NULL,
  turn_id             TEXT    NOT NULL,
  event_id            TEXT    NOT NULL,
  principal_id        TEXT    NOT NULL,
  emitter_service     TEXT    NOT NULL,
  emitter_instance    TEXT,
  occurred_at         TEXT    NOT NULL,        -- normalised RFC 3339 UTC (YYYY-MM-DDTHH:mm:ss.sssZ)
  sequence_in_service INTEGER NOT NULL,
  payload_type        TEXT    NOT NULL,
  payload_json        TEXT    NOT NULL,
  received_ms         INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, turn_id, event_id)
) WITHOUT ROWID;
CREATE TRIGGER turn_events_no_update BEFORE UPDATE ON turn_events BEGIN SELECT RAISE(IGNORE); END;
CREATE TRIGGER turn_events_no_delete BEFORE DELETE ON turn_events BEGIN SELECT RAISE(IGNORE); END;

CREATE TABLE envelopes (
  tenant_id           TEXT    NOT NULL,
  turn_id             TEXT    NOT NULL,
  payload             TEXT    NOT NULL,        -- JCS of the envelope payload
  signature           TEXT    NOT NULL,
  key_version         TEXT    NOT NULL,
  audit_log_id        INTEGER NOT NULL,
  audit_seq           INTEGER NOT NULL,
  audit_previous_hash TEXT    NOT NULL,
  audit_signature     TEXT    NOT NULL,
  audit_chain_hash    TEXT    NOT NULL,
  sealed_at           TEXT    NOT NULL,
  PRIMARY KEY (tenant_id, turn_id)
) WITHOUT ROWID;
CREATE TRIGGER envelopes_no_update BEFORE UPDATE ON envelopes BEGIN SELECT RAISE(IGNORE); END;
CREATE TRIGGER envelopes_no_delete BEFORE DELETE ON envelopes BEGIN SELECT RAISE(IGNORE); END;

-- Captured bodies (prompt, tool, model) stored content-addressed under objects/sha256/.
CREATE TABLE artifacts (
  tenant_id    TEXT    NOT NULL,
  turn_id      TEXT    NOT NULL,
  event_id     TEXT    NOT NULL,
  kind         TEXT    NOT NULL,
  sha256       TEXT    NOT NULL,
  size         INTEGER NOT NULL,
  content_type TEXT    NOT NULL,
  created_at   TEXT    NOT NULL,
  PRIMARY KEY (tenant_id, turn_id, event_id, kind)
) WITHOUT ROWID;
