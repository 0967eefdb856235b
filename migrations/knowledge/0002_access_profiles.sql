-- Permission profiles as far as knowledge is concerned (issue 13 item 8; spec "Roles and groups" 4):
-- the agent runtime owns the profiles and pushes the tenant's whole list here after each change and at
-- its start, so every read of a restricted caller is narrowed without a call per request.
CREATE TABLE access_profiles (
  tenant_id   TEXT NOT NULL,
  id          TEXT NOT NULL,
  roles       TEXT NOT NULL DEFAULT '[]',  -- JSON array
  groups_json TEXT NOT NULL DEFAULT '[]',  -- JSON array
  audiences   TEXT NOT NULL DEFAULT '[]',  -- JSON array: audience tags the profile opens
  tags        TEXT NOT NULL DEFAULT '[]',  -- JSON array: document tags the profile opens
  PRIMARY KEY (tenant_id, id)
);

CREATE TABLE access_profiles_sync (
  tenant_id TEXT PRIMARY KEY,
  synced_at TEXT NOT NULL
);
