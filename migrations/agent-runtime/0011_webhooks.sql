-- Signed webhooks (issue 18 item 2). The secret is sealed with the runtime's data key (AES-256-GCM,
-- AAD = [tenant, "webhook", id]) and never answered after create/rotate. owner_roles/groups are the
-- creating admin's at creation: an agent_run target runs as that user with those roles.
CREATE TABLE webhooks (
  id            TEXT PRIMARY KEY,
  tenant_id     TEXT NOT NULL,
  name          TEXT NOT NULL,
  target_json   TEXT NOT NULL,
  owner_id      TEXT NOT NULL,
  owner_roles_json  TEXT NOT NULL DEFAULT '[]',
  owner_groups_json TEXT NOT NULL DEFAULT '[]',
  key_id        TEXT NOT NULL,
  secret_iv     BLOB NOT NULL,
  secret_tag    BLOB NOT NULL,
  secret_ct     BLOB NOT NULL,
  secret_set_at TEXT NOT NULL,
  created_at    TEXT NOT NULL
);
CREATE INDEX webhooks_tenant ON webhooks (tenant_id, created_at);

-- Every delivery with its outcome (no body, no signature), newest kept per hook.
CREATE TABLE webhook_deliveries (
  id              TEXT PRIMARY KEY,
  tenant_id       TEXT NOT NULL,
  hook_id         TEXT NOT NULL,
  received_at     TEXT NOT NULL,
  outcome         TEXT NOT NULL CHECK (outcome IN ('accepted', 'rejected')),
  code            TEXT,
  turn_id         TEXT,
  notification_id TEXT
);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (tenant_id, hook_id, received_at);

-- The replay cache: a (hook, signature) seen within the window; rows past expires_ms are pruned.
CREATE TABLE webhook_replays (
  hook_id    TEXT NOT NULL,
  signature  TEXT NOT NULL,
  expires_ms INTEGER NOT NULL,
  PRIMARY KEY (hook_id, signature)
);
CREATE INDEX webhook_replays_expiry ON webhook_replays (expires_ms);
