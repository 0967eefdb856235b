-- Receipts a reviewer can verify without the secret (issue 22 items 2 and 3).
-- envelope_signatures: the Ed25519 signature over JCS({payload, audit_log_id, audit_seq}) of each
-- envelope sealed from now on, under the receipt key `kid` (services/audit/src/domain/receipt-signing.ts).
-- Envelopes sealed before this migration have no row: their proof carries public_signature = null.
CREATE TABLE envelope_signatures (
  tenant_id  TEXT NOT NULL,
  turn_id    TEXT NOT NULL,
  alg        TEXT NOT NULL,          -- 'Ed25519'
  kid        TEXT NOT NULL,          -- RFC 7638 thumbprint of the receipt public key
  sig        TEXT NOT NULL,          -- base64url of the 64-byte signature
  PRIMARY KEY (tenant_id, turn_id)
);
CREATE TRIGGER envelope_signatures_no_update BEFORE UPDATE ON envelope_signatures BEGIN SELECT RAISE(IGNORE); END;
CREATE TRIGGER envelope_signatures_no_delete BEFORE DELETE ON envelope_signatures BEGIN SELECT RAISE(IGNORE); END;

-- receipt_checkpoints: C2SP signed-note checkpoints of a tenant chain head (seq, chain_hash), as
-- served by GET /v1/receipts/checkpoints/{latest,seq} (services/audit/src/domain/checkpoints.ts).
CREATE TABLE receipt_checkpoints (
  tenant_id  TEXT    NOT NULL,
  seq        INTEGER NOT NULL,
  chain_hash TEXT    NOT NULL,       -- lowercase hex of the head row's chain_hash
  kid        TEXT    NOT NULL,
  note       TEXT    NOT NULL,       -- the whole signed note, UTF-8
  created_at TEXT    NOT NULL,
  PRIMARY KEY (tenant_id, seq)
);
CREATE TRIGGER receipt_checkpoints_no_update BEFORE UPDATE ON receipt_checkpoints BEGIN SELECT RAISE(IGNORE); END;
CREATE TRIGGER receipt_checkpoints_no_delete BEFORE DELETE ON receipt_checkpoints BEGIN SELECT RAISE(IGNORE); END;
