-- Guardrail store: policy overrides per tenant and agent, and per-turn de-identification mappings.

-- agent_id '' is the tenant-level override.
CREATE TABLE guard_policies (
  tenant_id   TEXT NOT NULL,
  agent_id    TEXT NOT NULL DEFAULT '',
  policy_json TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  updated_by  TEXT NOT NULL,
  PRIMARY KEY (tenant_id, agent_id)
);

-- One row per (turn, value). The value is stored AES-256-GCM encrypted; value_hash is an HMAC of
-- the normalised value so the same value maps to the same placeholder without decrypting.
CREATE TABLE deid_entries (
  tenant_id   TEXT NOT NULL,
  turn_id     TEXT NOT NULL,
  placeholder TEXT NOT NULL,
  entity_type TEXT NOT NULL,
  value_hash  TEXT NOT NULL,
  value_enc   BLOB NOT NULL,
  owner_id    TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, turn_id, placeholder),
  UNIQUE (tenant_id, turn_id, value_hash)
);
CREATE INDEX deid_entries_created ON deid_entries (created_at);
