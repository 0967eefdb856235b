-- Observability on PostgreSQL (issue 21 item 1): the twin of migrations/observability/0001_init.sql.
-- Text columns that are sorted or compared use COLLATE "C" (byte order, as SQLite's BINARY);
-- REAL is double precision; 0/1 flags stay integers so rows round-trip identically.

CREATE TABLE generations (
  event_id          TEXT COLLATE "C" PRIMARY KEY,
  tenant_id         TEXT COLLATE "C" NOT NULL,
  created_at        TEXT COLLATE "C" NOT NULL,
  day               TEXT COLLATE "C" NOT NULL,
  user_id           TEXT COLLATE "C",
  turn_id           TEXT,
  trace_id          TEXT,
  span_id           TEXT,
  role              TEXT COLLATE "C",
  requested_model   TEXT NOT NULL,
  model             TEXT COLLATE "C" NOT NULL,
  provider_id       TEXT COLLATE "C" NOT NULL,
  provider_name     TEXT COLLATE "C" NOT NULL,
  backend           TEXT NOT NULL,
  provider_version  TEXT,
  deterministic     INTEGER NOT NULL CHECK (deterministic IN (0, 1)),
  weight_hash       TEXT,
  stream            INTEGER NOT NULL CHECK (stream IN (0, 1)),
  status            TEXT COLLATE "C" NOT NULL CHECK (status IN ('ok', 'error', 'aborted')),
  error_code        TEXT,
  http_status       INTEGER NOT NULL,
  latency_ms        DOUBLE PRECISION NOT NULL,
  ttft_ms           DOUBLE PRECISION,
  prompt_tokens     INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  total_tokens      INTEGER NOT NULL,
  attempts          INTEGER NOT NULL,
  cost_usd          DOUBLE PRECISION,
  price_source      TEXT,
  ingested_at       TEXT NOT NULL
);
CREATE INDEX generations_tenant_event ON generations (tenant_id, event_id);
CREATE INDEX generations_tenant_created ON generations (tenant_id, created_at);
CREATE INDEX generations_tenant_user ON generations (tenant_id, user_id, event_id);

CREATE TABLE prices (
  model                TEXT COLLATE "C" PRIMARY KEY,
  input_usd_per_mtok   DOUBLE PRECISION NOT NULL,
  output_usd_per_mtok  DOUBLE PRECISION NOT NULL,
  updated_at           TEXT NOT NULL
);

CREATE TABLE meta (
  k TEXT PRIMARY KEY,
  v TEXT NOT NULL
);

CREATE TABLE budgets (
  tenant_id       TEXT COLLATE "C" PRIMARY KEY,
  period          TEXT NOT NULL CHECK (period IN ('day', 'month')),
  soft_limit_usd  DOUBLE PRECISION,
  hard_limit_usd  DOUBLE PRECISION,
  updated_at      TEXT NOT NULL,
  updated_by      TEXT
);

-- attributes: JSON text (the bytes SQLite keeps); start_time RFC 3339 UTC with milliseconds.
CREATE TABLE spans (
  trace_id        TEXT COLLATE "C" NOT NULL,
  span_id         TEXT COLLATE "C" NOT NULL,
  parent_span_id  TEXT,
  service         TEXT COLLATE "C" NOT NULL,
  name            TEXT NOT NULL,
  kind            TEXT NOT NULL,
  start_time      TEXT COLLATE "C" NOT NULL,
  duration_ms     DOUBLE PRECISION NOT NULL,
  status          TEXT NOT NULL,
  attributes      TEXT NOT NULL CHECK (attributes::jsonb IS NOT NULL),
  PRIMARY KEY (trace_id, span_id)
);
CREATE INDEX spans_start ON spans (start_time);
