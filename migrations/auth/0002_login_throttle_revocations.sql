-- Auth service, issue 11 item 2 and item 9 (revocation part).
-- Times are Unix milliseconds.

-- Failed password attempts of one account from one source (client IP; IPv6 by /64). Delays grow
-- with `failures` (1 s, 2 s, 4 s, ... up to the throttle window) counted from `last_at`; a success
-- from that source clears the row, and a row whose delay ended a whole window ago is forgotten.
-- Failures from one source never slow down another source's logins to the same account.
CREATE TABLE login_throttle (
  account   TEXT NOT NULL,                             -- lower-cased username as typed
  source    TEXT NOT NULL,                             -- client IP, IPv6 reduced to its /64
  failures  INTEGER NOT NULL CHECK (failures >= 0),
  last_at   INTEGER NOT NULL,                          -- latest counted attempt
  PRIMARY KEY (account, source)
) STRICT, WITHOUT ROWID;
CREATE INDEX login_throttle_last ON login_throttle(last_at);

-- Revoked access: a subject (disable, password change) or one session (refresh-token reuse).
-- The gateway polls these by `seq` and refuses access tokens of the subject (or session) issued at
-- or before `revoked_at`. Rows older than the access-token lifetime no longer matter and are pruned;
-- AUTOINCREMENT keeps `seq` increasing across pruning, so a poller's cursor never skips a row.
CREATE TABLE token_revocations (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  subject     TEXT NOT NULL,                           -- user id (the token's `sub`)
  session_id  TEXT,                                    -- the token's `sid`; NULL: every session of the subject
  revoked_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX token_revocations_at ON token_revocations(revoked_at);
