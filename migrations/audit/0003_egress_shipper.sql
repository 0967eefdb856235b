-- Egress shipper cursor (issue 19 item 6): which access-log file (device + inode) and how far it was
-- shipped; written in the same transaction as the audit rows it covers (no loss, no duplicates).
CREATE TABLE egress_log_cursor (
  name     TEXT PRIMARY KEY,      -- 'squid'
  dev      TEXT NOT NULL,
  ino      TEXT NOT NULL,
  offset   INTEGER NOT NULL
) STRICT;
CREATE INDEX audit_log_egress ON audit_log (tenant_id, action, timestamp) WHERE action IN ('egress.allow', 'egress.deny');
