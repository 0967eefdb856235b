-- Agents and skills (issue 17 items 1 and 2; spec "Agent runtime surfaces": /v1/agents, /v1/skills).
-- Tenant rows are written by admins (owner_id = the admin who created them, scope 'tenant'); personal
-- rows belong to owner_id. The default agent (settings defaultAgentId) is not stored unless an
-- admin edited it.

-- An agent: its configuration as JSON (description, instructions, tools, model_role, model,
-- knowledge, memory_scope, guardrail_policy, tool_approval); name and scope as columns.
CREATE TABLE agents (
  id          TEXT NOT NULL,
  tenant_id   TEXT NOT NULL,
  owner_id    TEXT NOT NULL,
  scope       TEXT NOT NULL CHECK (scope IN ('personal', 'tenant')),
  name        TEXT NOT NULL,
  config_json TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
CREATE INDEX agents_owner ON agents (tenant_id, scope, owner_id);

-- A skill at its current version; `sha256` is the lowercase hex digest of its SKILL.md form.
CREATE TABLE skills (
  id          TEXT NOT NULL,
  tenant_id   TEXT NOT NULL,
  owner_id    TEXT NOT NULL,
  scope       TEXT NOT NULL CHECK (scope IN ('personal', 'tenant')),
  name        TEXT NOT NULL,
  description TEXT NOT NULL,
  content     TEXT NOT NULL,
  version     INTEGER NOT NULL,
  sha256      TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
-- One name per scope and owner (tenant rows: per tenant).
CREATE UNIQUE INDEX skills_name ON skills (tenant_id, scope, CASE scope WHEN 'tenant' THEN '' ELSE owner_id END, name);

-- Every version of a skill, the current one included; kept when the skill is updated, removed with it.
CREATE TABLE skill_versions (
  tenant_id   TEXT NOT NULL,
  skill_id    TEXT NOT NULL,
  version     INTEGER NOT NULL,
  name        TEXT NOT NULL,
  description TEXT NOT NULL,
  content     TEXT NOT NULL,
  sha256      TEXT NOT NULL,
  created_by  TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (tenant_id, skill_id, version)
) WITHOUT ROWID;
