/**
 * Wiring of receipt format v2 (issue 22 items 2 and 3) for the audit app: the envelope port that
 * signs every sealed envelope with the receipt key (and a checkpoint at every manual seal), the
 * checkpoint service, and the v2 read ports of the receipt service. One function, so `app.ts`
 * stays a list of registrations.
 */
import { hostname } from 'node:os';
import { CheckpointService, checkpointOrigin } from './domain/checkpoints.js';
import type { EnvelopeStore } from './domain/ports.js';
import type { ReceiptV2Ports } from './domain/receipts.js';
import { signingEnvelopeStore, type ReceiptSigner } from './domain/receipt-signing.js';
import type { AuditStore } from './store/audit-store.js';
import { SqliteCheckpointStore, SqliteEnvelopeSignatureStore } from './store/receipt-signatures.js';

/** What `receiptV2` builds. */
export interface ReceiptV2 extends ReceiptV2Ports {
  /** The envelope port the turn service seals through. */
  envelopes: EnvelopeStore;
  checkpoints: CheckpointService;
}

/**
 * Build the v2 pieces over the open store. Checkpoint origin: `<hostname>/svc-receipts/<tenant>`
 * (`workstation` overrides the host name).
 */
export function receiptV2(store: AuditStore, signer: ReceiptSigner, workstation: string = hostname()): ReceiptV2 {
  const signatures = new SqliteEnvelopeSignatureStore(store.db);
  const checkpoints = new CheckpointService(new SqliteCheckpointStore(store.db), store.log, signer, (t) => checkpointOrigin(workstation, t));
  const envelopes = signingEnvelopeStore(store.envelopes, signer, signatures, (t, seq, ch) => { checkpoints.sign(t, seq, ch); });
  return { signatures, checkpoints, envelopes };
}
