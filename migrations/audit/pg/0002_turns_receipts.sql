-- The rest of the audit store on PostgreSQL (issue 21 item 1): turns, turn events, envelopes,
-- artifacts (../0001_init.sql, history columns of ../0002_receipt_history.sql), the egress cursor
-- (../0003_egress_shipper.sql) and receipt format v2 (../0004_receipt_signatures.sql). Same columns
-- and text encodings as SQLite; INTEGER epoch-ms and counters as bigint. Append-only tables skip
-- UPDATE and DELETE silently, as SQLite's RAISE(IGNORE) triggers do (audit_append_only, 0001).

CREATE TABLE turns (
  tenant_id     text    NOT NULL,
  turn_id       text    NOT NULL,
  receipt_id    text    NOT NULL,
  principal_id  text    NOT NULL,
  created_ms    bigint  NOT NULL,
  terminal      text,
  status        text    NOT NULL DEFAULT 'pending',
  sealed_at     text,
  sealed_seq    bigint,
  verified_at   text,
  verified_by   text,
  kind          text,
  summary       text,
  method        text,
  route         text,
  outcome       text,
  http_status   integer,
  started_at    text,
  PRIMARY KEY (tenant_id, turn_id)
);
CREATE INDEX turns_open ON turns (status, created_ms) WHERE status = 'pending';
CREATE INDEX turns_sealed ON turns (tenant_id, sealed_seq) WHERE sealed_seq IS NOT NULL;
CREATE INDEX turns_sealed_kind ON turns (tenant_id, kind, sealed_seq) WHERE sealed_seq IS NOT NULL;
CREATE INDEX turns_sealed_owner ON turns (tenant_id, principal_id, sealed_seq) WHERE sealed_seq IS NOT NULL;

CREATE TABLE turn_events (
  tenant_id           text    NOT NULL,
  turn_id             text    NOT NULL,
  event_id            text    NOT NULL,
  principal_id        text    NOT NULL,
  emitter_service     text    NOT NULL,
  emitter_instance    text,
  occurred_at         text    NOT NULL,
  sequence_in_service bigint  NOT NULL,
  payload_type        text    NOT NULL,
  payload_json        text    NOT NULL,
  received_ms         bigint  NOT NULL,
  PRIMARY KEY (tenant_id, turn_id, event_id)
);
CREATE TRIGGER turn_events_no_update BEFORE UPDATE ON turn_events FOR EACH ROW EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER turn_events_no_delete BEFORE DELETE ON turn_events FOR EACH ROW EXECUTE FUNCTION audit_append_only();

CREATE TABLE envelopes (
  tenant_id           text    NOT NULL,
  turn_id             text    NOT NULL,
  payload             text    NOT NULL,
  signature           text    NOT NULL,
  key_version         text    NOT NULL,
  audit_log_id        bigint  NOT NULL,
  audit_seq           bigint  NOT NULL,
  audit_previous_hash text    NOT NULL,
  audit_signature     text    NOT NULL,
  audit_chain_hash    text    NOT NULL,
  sealed_at           text    NOT NULL,
  PRIMARY KEY (tenant_id, turn_id)
);
CREATE TRIGGER envelopes_no_update BEFORE UPDATE ON envelopes FOR EACH ROW EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER envelopes_no_delete BEFORE DELETE ON envelopes FOR EACH ROW EXECUTE FUNCTION audit_append_only();

CREATE TABLE artifacts (
  tenant_id    text    NOT NULL,
  turn_id      text    NOT NULL,
  event_id     text    NOT NULL,
  kind         text    NOT NULL,
  sha256       text    NOT NULL,
  size         bigint  NOT NULL,
  content_type text    NOT NULL,
  created_at   text    NOT NULL,
  PRIMARY KEY (tenant_id, turn_id, event_id, kind)
);

CREATE TABLE egress_log_cursor (
  name     text   PRIMARY KEY,
  dev      text   NOT NULL,
  ino      text   NOT NULL,
  "offset" bigint NOT NULL
);
CREATE INDEX audit_log_egress ON audit_log (tenant_id, action, timestamp) WHERE action IN ('egress.allow', 'egress.deny');

CREATE TABLE envelope_signatures (
  tenant_id  text NOT NULL,
  turn_id    text NOT NULL,
  alg        text NOT NULL,
  kid        text NOT NULL,
  sig        text NOT NULL,
  PRIMARY KEY (tenant_id, turn_id)
);
CREATE TRIGGER envelope_signatures_no_update BEFORE UPDATE ON envelope_signatures FOR EACH ROW EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER envelope_signatures_no_delete BEFORE DELETE ON envelope_signatures FOR EACH ROW EXECUTE FUNCTION audit_append_only();

CREATE TABLE receipt_checkpoints (
  tenant_id  text   NOT NULL,
  seq        bigint NOT NULL,
  chain_hash text   NOT NULL,
  kid        text   NOT NULL,
  note       text   NOT NULL,
  created_at text   NOT NULL,
  PRIMARY KEY (tenant_id, seq)
);
CREATE TRIGGER receipt_checkpoints_no_update BEFORE UPDATE ON receipt_checkpoints FOR EACH ROW EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER receipt_checkpoints_no_delete BEFORE DELETE ON receipt_checkpoints FOR EACH ROW EXECUTE FUNCTION audit_append_only();
