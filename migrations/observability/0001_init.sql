-- Observability: generation records, prices, tenant budgets, trace spans.
-- Times are RFC 3339 UTC text with milliseconds (Date#toISOString), so text order is time order.

CREATE TABLE generations (
  event_id          TEXT PRIMARY KEY,                 -- ULID minted by the router at request start
  tenant_id         TEXT NOT NULL,
  created_at        TEXT NOT NULL,
  day               TEXT NOT NULL,                    -- YYYY-MM-DD (UTC) of created_at
  user_id           TEXT,
  turn_id           TEXT,
  trace_id          TEXT,
  span_id           TEXT,
  role              TEXT,                             -- model role alias when the request named one
  requested_model   TEXT NOT NULL,
  model             TEXT NOT NULL,                    -- concrete model that served (or last tried)
  provider_id       TEXT NOT NULL,
  provider_name     TEXT NOT NULL,
  backend           TEXT NOT NULL,                    -- chat_completions | responses | local_llama_cpp
  provider_version  TEXT,
  deterministic     INTEGER NOT NULL CHECK (deterministic IN (0, 1)),
  weight_hash       TEXT,                             -- sha256 hex of the GGUF for local models
  stream            INTEGER NOT NULL CHECK (stream IN (0, 1)),
  status            TEXT NOT NULL CHECK (status IN ('ok', 'error', 'aborted')),
  error_code        TEXT,
  http_status       INTEGER NOT NULL,
  latency_ms        REAL NOT NULL,
  ttft_ms           REAL,
  prompt_tokens     INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  total_tokens      INTEGER NOT NULL,
  attempts          INTEGER NOT NULL,
  cost_usd          REAL,
  price_source      TEXT,                             -- local | list | caller | NULL (no price known)
  ingested_at       TEXT NOT NULL
) STRICT;
CREATE INDEX generations_tenant_event ON generations (tenant_id, event_id);
CREATE INDEX generations_tenant_created ON generations (tenant_id, created_at);
CREATE INDEX generations_tenant_user ON generations (tenant_id, user_id, event_id);

-- Prices from the external list (POST /v1/prices/refresh); local prices come from OBS_LOCAL_PRICE_JSON.
CREATE TABLE prices (
  model                TEXT PRIMARY KEY,
  input_usd_per_mtok   REAL NOT NULL,
  output_usd_per_mtok  REAL NOT NULL,
  updated_at           TEXT NOT NULL
) STRICT;

CREATE TABLE meta (
  k TEXT PRIMARY KEY,
  v TEXT NOT NULL
) STRICT;

CREATE TABLE budgets (
  tenant_id       TEXT PRIMARY KEY,
  period          TEXT NOT NULL CHECK (period IN ('day', 'month')),
  soft_limit_usd  REAL,
  hard_limit_usd  REAL,
  updated_at      TEXT NOT NULL,
  updated_by      TEXT
) STRICT;

CREATE TABLE spans (
  trace_id        TEXT NOT NULL,
  span_id         TEXT NOT NULL,
  parent_span_id  TEXT,
  service         TEXT NOT NULL,
  name            TEXT NOT NULL,
  kind            TEXT NOT NULL,
  start_time      TEXT NOT NULL,
  duration_ms     REAL NOT NULL,
  status          TEXT NOT NULL,
  attributes      TEXT NOT NULL CHECK (json_valid(attributes)),
  PRIMARY KEY (trace_id, span_id)
) STRICT;
CREATE INDEX spans_start ON spans (start_time);
