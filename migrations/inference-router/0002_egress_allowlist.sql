-- Egress allowlist (issue 19 item 6): destinations Squid lets through under SVC_EGRESS_POLICY=enforce.
CREATE TABLE egress_allowlist (
  id          TEXT PRIMARY KEY,                    -- ULID-like
  destination TEXT NOT NULL UNIQUE COLLATE NOCASE, -- host:port, *.domain:port, host:* or an IP literal form
  created_at  TEXT NOT NULL,
  created_by  TEXT
) STRICT;
