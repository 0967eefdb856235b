-- The turn-event outbox of one emitting service (issue 11 item 7): `<dbDir>/<service>-outbox.sqlite`.
-- An event is inserted when it is emitted (before the answer that it describes completes) and
-- deleted once audit acknowledged it; `seq` is the delivery order and never reused (AUTOINCREMENT),
-- `created_ms` the insert time (Unix ms) for the age cap, `event_json` the wire event as sent.
CREATE TABLE turn_event_outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  created_ms INTEGER NOT NULL,
  event_json TEXT NOT NULL
);
