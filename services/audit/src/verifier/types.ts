/**
 * The verifier's result types (DESIGN.md "Receipt format v1"; spec "Offline verification"), and the
 * receipt format v1 / v1.1 wire shapes re-exported from the contracts (their one definition). Plain
 * types, no runtime code beyond the error class (and the contracts' row predicate).
 */
import type { CheckId, SuffixCoverage, VerificationErrorCode } from '../contracts/receipt-format.js';

export type {
  ReceiptStatus, ReceiptObject, EnvelopeRecord, SuffixRow, RedactedSuffixRow, ProofSuffixRow, ProofExport, ReceiptDetail, ReceiptBundle,
  VerificationErrorCode, CheckId, SuffixCoverage, PublicSignature,
} from '../contracts/receipt-format.js';
export { isRedactedRow, RECEIPT_FORMAT_V1_1, RECEIPT_FORMAT_V2, PUBLIC_SIGNATURE_ALG } from '../contracts/receipt-format.js';

/** A typed verification failure. `path` names the offending JSON location when known. */
export class VerificationError extends Error {
  readonly code: VerificationErrorCode;
  readonly path: string | undefined;
  constructor(code: VerificationErrorCode, message: string, path?: string) {
    super(message);
    this.name = 'VerificationError';
    this.code = code;
    this.path = path;
  }
}

/** Outcome of one check. */
export interface CheckResult {
  id: CheckId;
  /** Human title, e.g. "Merkle root over the leaves". */
  title: string;
  ok: boolean;
  /** One-line summary of what held or what failed. */
  detail: string;
  /** The failures behind `ok: false` (empty when ok). */
  errors: VerificationError[];
  /** Issue 22: true when the check could not be made with the material given (then `ok` is false). */
  skipped?: boolean;
}

/** Result of `verifyReceipt`: ok only when every check holds. */
export interface VerificationReport {
  ok: boolean;
  checks: CheckResult[];
  /** turn_id of the envelope, when parsing got that far. */
  turn_id: string | null;
  /** How many suffix rows were checked in full and by link only (v1.1); null when parsing failed. */
  suffix: SuffixCoverage | null;
}
