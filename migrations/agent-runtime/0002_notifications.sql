-- Notifications (spec "Agent runtime surfaces": /v1/notifications, /v1/internal/notifications;
-- "Limits": payload at most 8 KiB and 8 levels, NOTIFICATIONS_MAX_PER_USER; issue 13 item 1).
-- Every row belongs to one (tenant, user). Ids are ULIDs, so id order is creation order.

CREATE TABLE notifications (
  id               TEXT PRIMARY KEY,
  tenant_id        TEXT NOT NULL,
  user_id          TEXT NOT NULL,
  kind             TEXT NOT NULL,
  title            TEXT NOT NULL,
  body             TEXT,
  payload          TEXT,                 -- JSON object, or NULL
  producer         TEXT NOT NULL,        -- service name of the producer (`service:<name>` without the prefix)
  idempotency_key  TEXT,
  read_at          TEXT,
  created_at       TEXT NOT NULL
);
-- The inbox, newest first (keyset pagination on id).
CREATE INDEX notifications_inbox ON notifications (tenant_id, user_id, id DESC);
-- Unread rows of a user (read-all) and the eviction order: read before unread, oldest first.
CREATE INDEX notifications_unread ON notifications (tenant_id, user_id, read_at);
CREATE INDEX notifications_eviction ON notifications (tenant_id, user_id, (read_at IS NULL), id);
-- One notification per (tenant, user, idempotency_key): a repeated key answers the original.
CREATE UNIQUE INDEX notifications_idempotency ON notifications (tenant_id, user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- Per-user counters kept by triggers in the same transaction as the row change, so the unread
-- count and the cap check read one row instead of counting.
CREATE TABLE notification_counters (
  tenant_id  TEXT NOT NULL,
  user_id    TEXT NOT NULL,
  total      INTEGER NOT NULL DEFAULT 0,
  unread     INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, user_id)
) WITHOUT ROWID;

CREATE TRIGGER notifications_counted_insert AFTER INSERT ON notifications BEGIN
  INSERT INTO notification_counters (tenant_id, user_id, total, unread) VALUES (NEW.tenant_id, NEW.user_id, 1, NEW.read_at IS NULL)
  ON CONFLICT (tenant_id, user_id) DO UPDATE SET total = total + 1, unread = unread + (NEW.read_at IS NULL);
END;

CREATE TRIGGER notifications_counted_delete AFTER DELETE ON notifications BEGIN
  UPDATE notification_counters SET total = total - 1, unread = unread - (OLD.read_at IS NULL)
  WHERE tenant_id = OLD.tenant_id AND user_id = OLD.user_id;
END;

CREATE TRIGGER notifications_counted_read AFTER UPDATE OF read_at ON notifications
WHEN (OLD.read_at IS NULL) <> (NEW.read_at IS NULL) BEGIN
  UPDATE notification_counters SET unread = unread + (NEW.read_at IS NULL) - (OLD.read_at IS NULL)
  WHERE tenant_id = OLD.tenant_id AND user_id = OLD.user_id;
END;
