-- Knowledge connectors (issue 18 item 3): a folder on the workstation or an IMAP mailbox, synced
-- incrementally into the knowledge service. `connector_documents` is the per-item state (what was
-- synced, its fingerprint and knowledge document); `connector_jobs` the persisted sync jobs (a job
-- `queued` or `running` at a stop resumes at the next start).
CREATE TABLE connectors (
  id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  config_json TEXT NOT NULL,
  visibility_mode TEXT NOT NULL,
  audience_tags_json TEXT NOT NULL,
  user_grants_json TEXT NOT NULL,
  schedule_minutes INTEGER,
  selected_json TEXT,
  owner_json TEXT NOT NULL,
  status TEXT NOT NULL,
  last_sync_at TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, id)
);

CREATE TABLE connector_documents (
  tenant_id TEXT NOT NULL,
  connector_id TEXT NOT NULL,
  path_or_uid TEXT NOT NULL,
  item_key TEXT NOT NULL,
  document_id TEXT,
  status TEXT NOT NULL,
  last_error TEXT,
  size INTEGER,
  mtime_ms INTEGER,
  sha256 TEXT,
  synced_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, connector_id, path_or_uid)
);
CREATE INDEX connector_documents_item ON connector_documents (tenant_id, connector_id, item_key);

CREATE TABLE connector_jobs (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  connector_id TEXT,
  state TEXT NOT NULL,
  total INTEGER NOT NULL DEFAULT 0,
  done INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  started_at TEXT,
  finished_at TEXT,
  error TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX connector_jobs_state ON connector_jobs (state);
