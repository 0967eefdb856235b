/**
 * Wire shapes of receipt format v1 and the verifier's result types (DESIGN.md "Receipt format v1":
 * proof export, bundle; spec "Receipt"). Plain types, no runtime code beyond the error class.
 */
import type { EnvelopePayload, LeafEvent } from './format.js';

/** Receipt status (spec "States and transitions"). */
export type ReceiptStatus = 'pending' | 'sealed' | 'verified';

/** The receipt object of chat responses and receipt routes (spec "Receipt"). Not signed. */
export interface ReceiptObject {
  /** ULID. */
  id: string;
  /** ULID of the turn. */
  turn_id: string;
  /** Always `attestable`. */
  tier: string;
  status: ReceiptStatus;
  sealed: boolean;
  /** `/v1/receipts/{turn_id}`. */
  receipt_url: string;
  /** `/v1/receipts/{turn_id}/proof`. */
  proof_url: string;
  /** `/v1/receipts/{turn_id}/bundle`. */
  bundle_url: string;
}

/** The signed envelope plus its anchor (DESIGN.md proof export `envelope`). */
export interface EnvelopeRecord {
  payload: EnvelopePayload;
  /** HMAC(JCS(payload)), lowercase hex. */
  signature: string;
  key_version: string;
  audit_log_id: number;
  audit_seq: number;
  audit_previous_hash: string;
  audit_signature: string;
  audit_chain_hash: string;
}

/** One audit chain row of a proof suffix. */
export interface SuffixRow {
  id: number;
  seq: number;
  /** JCS text of the signed fields. */
  signed_payload: string;
  signature: string;
  previous_hash: string;
  key_version: string;
  chain_hash: string;
}

/** Proof export: `GET /v1/receipts/{turn_id}/proof`. */
export interface ProofExport {
  receipt: ReceiptObject;
  envelope: EnvelopeRecord;
  /** suffix[0] is the anchoring row, then every later row of the tenant chain. */
  audit_chain: { suffix: SuffixRow[] };
}

/** Receipt detail: `GET /v1/receipts/{turn_id}`; events in leaf order. */
export interface ReceiptDetail {
  receipt: ReceiptObject;
  envelope: EnvelopeRecord;
  events: LeafEvent[];
}

/** Bundle: `GET /v1/receipts/{turn_id}/bundle`. */
export interface ReceiptBundle {
  detail: ReceiptDetail;
  proof: ProofExport;
}

/** Error codes of verification (switch on these, never on messages). */
export type VerificationErrorCode =
  | 'MALFORMED'
  | 'BINDING_ERROR'
  | 'LEAF_ERROR'
  | 'MERKLE_ROOT_ERROR'
  | 'ENVELOPE_SIGNATURE_ERROR'
  | 'UNKNOWN_KEY_VERSION'
  | 'ANCHOR_ERROR'
  | 'ROW_SIGNATURE_ERROR'
  | 'CHAIN_CONTINUITY_ERROR';

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

/** Identifiers of the checks, in the order they run. */
export type CheckId =
  | 'structure' | 'binding' | 'leaves' | 'merkle_root' | 'envelope_hmac' | 'anchor' | 'suffix_hmac' | 'suffix_continuity';

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
}

/** Result of `verifyReceipt`: ok only when every check holds. */
export interface VerificationReport {
  ok: boolean;
  checks: CheckResult[];
  /** turn_id of the envelope, when parsing got that far. */
  turn_id: string | null;
}
