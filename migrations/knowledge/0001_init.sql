-- Knowledge store (spec "Knowledge"; docs/decisions-knowledge.md).
-- Documents carry the governance fields; chunks are indexed twice: FTS5 (analysed terms, BM25) and,
-- when a model is present, vectors (float32 in chunk_vectors, sign bits in the vec0 table created
-- at start for the configured EMBEDDING_DIMS).

CREATE TABLE documents (
  id               TEXT PRIMARY KEY,            -- ULID, also knowledge_item_id
  tenant_id        TEXT NOT NULL,
  title            TEXT NOT NULL,
  source_type      TEXT NOT NULL CHECK (source_type IN ('file', 'text', 'batch')),
  filename         TEXT,
  mime_type        TEXT,
  bytes            INTEGER,
  object_sha256    TEXT,                         -- original upload in objects/ (files only)
  owner_user_id    TEXT NOT NULL,
  creator_user_id  TEXT NOT NULL,
  visibility_mode  TEXT NOT NULL CHECK (visibility_mode IN ('private', 'shared', 'restricted')),
  tags             TEXT NOT NULL DEFAULT '[]',   -- JSON array
  metadata         TEXT NOT NULL DEFAULT '{}',   -- JSON object
  status           TEXT NOT NULL CHECK (status IN ('indexing', 'indexed', 'failed')),
  chunks_indexed   INTEGER NOT NULL DEFAULT 0,
  chunks_embedded  INTEGER NOT NULL DEFAULT 0,
  last_error       TEXT,
  archived_at      TEXT,
  batch_id         TEXT,
  content          TEXT,                         -- extracted text
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);
CREATE INDEX documents_tenant_created ON documents (tenant_id, created_at DESC, id DESC);
CREATE INDEX documents_owner ON documents (tenant_id, owner_user_id);

CREATE TABLE document_audiences (
  document_id  TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  audience_tag TEXT NOT NULL,
  PRIMARY KEY (document_id, audience_tag)
) WITHOUT ROWID;
CREATE INDEX document_audiences_tag ON document_audiences (audience_tag);

CREATE TABLE document_grants (
  document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  user_id     TEXT NOT NULL,
  PRIMARY KEY (document_id, user_id)
) WITHOUT ROWID;
CREATE INDEX document_grants_user ON document_grants (user_id);

CREATE TABLE chunks (
  id           INTEGER PRIMARY KEY,
  document_id  TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  chunk_index  INTEGER NOT NULL,
  heading      TEXT,
  content      TEXT NOT NULL,
  embedded     INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX chunks_doc ON chunks (document_id, chunk_index);
CREATE INDEX chunks_unembedded ON chunks (embedded) WHERE embedded = 0;

-- Analysed terms (services/embedder/src/text/analyzer.ts): title and body, weighted in bm25().
CREATE VIRTUAL TABLE chunks_fts USING fts5 (title, body, tokenize = 'unicode61', content = '', contentless_delete = 1);

CREATE TABLE chunk_vectors (
  chunk_id INTEGER PRIMARY KEY,
  vec      BLOB NOT NULL                          -- float32[dims], L2-normalised
);

CREATE TABLE audiences (
  tenant_id   TEXT NOT NULL,
  tag         TEXT NOT NULL,
  description TEXT,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  PRIMARY KEY (tenant_id, tag)
) WITHOUT ROWID;

CREATE TABLE audience_members (
  tenant_id TEXT NOT NULL,
  tag       TEXT NOT NULL,
  user_id   TEXT NOT NULL,
  PRIMARY KEY (tenant_id, tag, user_id)
) WITHOUT ROWID;
CREATE INDEX audience_members_user ON audience_members (tenant_id, user_id);

CREATE TABLE wiki_pages (
  tenant_id       TEXT NOT NULL,
  topic           TEXT NOT NULL,
  title           TEXT NOT NULL,
  summary         TEXT NOT NULL DEFAULT '',
  tags            TEXT NOT NULL DEFAULT '[]',
  content         TEXT NOT NULL,
  owner_user_id   TEXT NOT NULL,
  visibility_mode TEXT NOT NULL CHECK (visibility_mode IN ('private', 'shared', 'restricted')),
  audience_tags   TEXT NOT NULL DEFAULT '[]',
  user_grants     TEXT NOT NULL DEFAULT '[]',
  created_by      TEXT NOT NULL,
  updated_by      TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  PRIMARY KEY (tenant_id, topic)
) WITHOUT ROWID;

CREATE TABLE jobs (
  id          TEXT PRIMARY KEY,
  tenant_id   TEXT NOT NULL,
  kind        TEXT NOT NULL,                       -- batch_ingest | reindex | reembed
  status      TEXT NOT NULL,                       -- running | done | failed
  owner_user_id TEXT NOT NULL,
  total       INTEGER NOT NULL DEFAULT 0,
  done        INTEGER NOT NULL DEFAULT 0,
  error       TEXT,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
