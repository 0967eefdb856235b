-- Gateway on PostgreSQL (issue 21 item 1), schema `gateway`: the backup schedule's sealed box
-- (AES-256-GCM JSON text, as `<dataDir>/secrets/backup-schedule.sealed` holds it on the desktop).
-- One row; the sealing key stays in the OS keychain or `<dataDir>/secrets/backup-schedule.key`.
CREATE TABLE backup_schedule (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  sealed      TEXT NOT NULL,
  updated_at  BIGINT NOT NULL
);
