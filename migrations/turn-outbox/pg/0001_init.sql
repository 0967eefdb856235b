-- The turn-event outbox on PostgreSQL (issue 21 item 1; issue 11 item 7): table `turn_outbox` in the
-- schema of the service that emits (gateway, agent_runtime), shared by every instance of it.
-- Applied by services/shared/events/outbox-pg.ts with its own bookkeeping (`turn_outbox_migrations`),
-- so it never collides with the service's own migration numbers in `schema_migrations`.
-- A row is owned by one instance (`owner`) while its lease (`lease_until`, Unix ms of the database
-- clock) runs; the owner renews it, ships the row to audit and deletes it. An instance that dies
-- stops renewing, and another one claims the row (FOR UPDATE SKIP LOCKED) once the lease ran out.
CREATE TABLE IF NOT EXISTS turn_outbox (
  seq         BIGSERIAL PRIMARY KEY,
  event_id    TEXT NOT NULL,
  created_ms  BIGINT NOT NULL,
  event_json  TEXT NOT NULL,
  owner       TEXT NOT NULL,
  lease_until BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS turn_outbox_owner ON turn_outbox (owner, event_id);
CREATE INDEX IF NOT EXISTS turn_outbox_lease ON turn_outbox (lease_until, seq);
