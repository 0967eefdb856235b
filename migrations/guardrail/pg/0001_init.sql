-- Guardrail store on PostgreSQL (issue 21 item 1): the twin of migrations/guardrail/0001_init.sql.

-- agent_id '' is the tenant-level override. policy_json stays text (the bytes SQLite keeps).
CREATE TABLE guard_policies (
  tenant_id   TEXT NOT NULL,
  agent_id    TEXT NOT NULL DEFAULT '',
  policy_json TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  updated_by  TEXT NOT NULL,
  PRIMARY KEY (tenant_id, agent_id)
);

-- One row per (turn, value); value_enc is AES-256-GCM (iv | tag | ciphertext), value_hash an HMAC.
CREATE TABLE deid_entries (
  tenant_id   TEXT NOT NULL,
  turn_id     TEXT NOT NULL,
  placeholder TEXT NOT NULL,
  entity_type TEXT NOT NULL,
  value_hash  TEXT NOT NULL,
  value_enc   BYTEA NOT NULL,
  owner_id    TEXT NOT NULL,
  created_at  BIGINT NOT NULL,
  PRIMARY KEY (tenant_id, turn_id, placeholder),
  UNIQUE (tenant_id, turn_id, value_hash)
);
CREATE INDEX deid_entries_created ON deid_entries (created_at);
