/**
 * Audit service entry (spec "Services": audit, port 8008; "Audit log row", "Turn event",
 * "Turn envelope", "Receipt", "Audit and receipts", "Audit signing keys").
 *
 * `start(cfg, runtime?)` refuses to start with a short or placeholder AUDIT_SIGNING_KEY (and says
 * why), opens `<dbDir>/audit.sqlite` (or schema `audit` of PostgreSQL when `cfg.database` is set), listens on `cfg.host:cfg.port` (0 = ephemeral) and starts the
 * background sealer. `runtime.auditKeys` / `runtime.auditKeyMaterial` rotate keys without a
 * restart. `close()` drains HTTP, stops the sealer, commits queued writes and closes the store.
 */
import { serviceStart } from '../../shared/kit/service.js';
import { auditService } from './app.js';

/** Start the audit service. @throws Error when the keys are unacceptable, the store cannot be opened or the port is taken. */
export const start = serviceStart(auditService);
/** Issue 19 item 2: the restore dry run's chain verification of a restored audit store. */
export { verifyRestoredAuditChain } from './verify-restored.js';
/** Issue 19 item 3: the receipt signing key store (the supervisor rotates it; audit publishes it). */
export { ensureReceiptKeys, receiptFingerprint, rotateReceiptKey, type ReceiptKeyRecord } from './store/receipt-keys.js';
