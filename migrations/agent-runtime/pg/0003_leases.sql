-- Leases for once-per-deployment background work when several runtimes share this schema
-- (issue 21; services/shared/db/leases.ts): the connector schedule and jobs, the OAuth refresher.
-- until_ms: Unix ms of the database clock; 0 = released.
CREATE TABLE svc_leases (
  name      TEXT PRIMARY KEY,
  owner     TEXT NOT NULL,
  until_ms  BIGINT NOT NULL
);
