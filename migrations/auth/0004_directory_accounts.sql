-- Auth service, issue 15 item 3: local accounts provisioned from the corporate directory (dirauth).
-- A row marks the account as the directory's (only these are signed into through the directory) and
-- keeps the user's directory groups for the `groups` claim of every token (login and refresh).
CREATE TABLE directory_accounts (
  user_id    TEXT PRIMARY KEY REFERENCES users(id),
  dn         TEXT NOT NULL,                               -- the entry's DN at the last sign-in
  username   TEXT NOT NULL,                               -- its uid
  groups     TEXT NOT NULL CHECK (json_valid(groups)),    -- JSON array of group names (cn)
  synced_at  TEXT NOT NULL                                -- RFC 3339 UTC of the last sign-in
) STRICT;
