-- Audit chain on PostgreSQL (issue 21 item 1): audit_log and chain_head as in ../0001_init.sql,
-- same columns and text encodings (JSON kept as text: the signed bytes are the stored bytes).
-- Both are append-only: BEFORE UPDATE/DELETE triggers skip the change silently, as SQLite's
-- RAISE(IGNORE) triggers do. Writers of one tenant serialise on an advisory lock keyed by the
-- tenant (services/audit/src/store/pg/audit-log.ts); UNIQUE (tenant_id, seq) is the backstop.

CREATE TABLE audit_log (
  id             bigint  PRIMARY KEY,          -- from audit_log_id_seq, reserved under the chain lock
  tenant_id      text    NOT NULL,
  seq            bigint  NOT NULL,             -- 1..N per tenant
  timestamp      text    NOT NULL,             -- RFC 3339 UTC, application side
  user_id        text,
  action         text    NOT NULL,
  resource_type  text,
  resource_id    text,
  detail_type    text,
  detail         text    NOT NULL,             -- JSON text
  previous_hash  text    NOT NULL,
  signed_payload text    NOT NULL,             -- JCS of the signed fields
  signature      text    NOT NULL,             -- HMAC-SHA256 hex
  key_version    text    NOT NULL,
  agent_id       text,
  agent_chain    text,                         -- JSON text or NULL
  delegated_by   text,
  UNIQUE (tenant_id, seq)
);
CREATE SEQUENCE audit_log_id_seq AS bigint OWNED BY audit_log.id;
CREATE INDEX audit_log_user ON audit_log (tenant_id, user_id, seq);
CREATE INDEX audit_log_action ON audit_log (tenant_id, action, seq);

CREATE TABLE chain_head (
  tenant_id     text    NOT NULL,
  seq           bigint  NOT NULL,
  audit_log_id  bigint  NOT NULL,
  signature     text    NOT NULL,
  previous_hash text    NOT NULL,
  chain_hash    text    NOT NULL,
  key_version   text    NOT NULL,
  PRIMARY KEY (tenant_id, seq)
);

CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER chain_head_no_update BEFORE UPDATE ON chain_head FOR EACH ROW EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER chain_head_no_delete BEFORE DELETE ON chain_head FOR EACH ROW EXECUTE FUNCTION audit_append_only();
