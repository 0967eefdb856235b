/**
 * Wiring of receipt format v2 (issue 22 items 2 and 3) for the audit app: the envelope port that
 * signs every sealed envelope with the receipt key (and a checkpoint at every manual seal), the
 * checkpoint service, and the v2 read ports of the receipt service. One function, so `app.ts`
 * stays a list of registrations. Over SQLite or PostgreSQL (issue 21 item 1): the signing runs
 * inside the sealing writer job either way.
 */
import { hostname } from 'node:os';
import { CheckpointService, checkpointOrigin } from './domain/checkpoints.js';
import type { AsyncPort } from './domain/async-ports.js';
import type { EnvelopeStore } from './domain/ports.js';
import type { ReceiptV2Ports } from './domain/receipts.js';
import { signingEnvelopeStore, type ReceiptSigner } from './domain/receipt-signing.js';
import type { AuditStore } from './store/audit-store.js';
import type { AuditBackend } from './store/backend.js';
import { SqliteCheckpointStore, SqliteEnvelopeSignatureStore } from './store/receipt-signatures.js';

/** What `receiptV2` builds. */
export interface ReceiptV2 extends ReceiptV2Ports {
  /** The envelope port the turn service seals through. */
  envelopes: AsyncPort<EnvelopeStore>;
  checkpoints: CheckpointService;
}

/** The tables receipt format v2 reads and writes (an `AuditBackend` has them all). */
export type ReceiptV2Sources = Pick<AuditBackend, 'log' | 'envelopes' | 'signatures' | 'checkpoints'>;

/**
 * Build the v2 pieces over the open store (a SQLite `AuditStore`, or any facade's tables).
 * Checkpoint origin: `<hostname>/svc-receipts/<tenant>` (`workstation` overrides the host name).
 */
export function receiptV2(store: AuditStore | ReceiptV2Sources, signer: ReceiptSigner, workstation: string = hostname()): ReceiptV2 {
  const src: ReceiptV2Sources = 'signatures' in store ? store : {
    log: store.log, envelopes: store.envelopes, signatures: new SqliteEnvelopeSignatureStore(store.db), checkpoints: new SqliteCheckpointStore(store.db),
  };
  const checkpoints = new CheckpointService(src.checkpoints, src.log, signer, (t) => checkpointOrigin(workstation, t));
  const envelopes = signingEnvelopeStore(src.envelopes, signer, src.signatures, (t, seq, ch) => checkpoints.sign(t, seq, ch));
  return { signatures: src.signatures, checkpoints, envelopes };
}
