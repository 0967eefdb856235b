/**
 * Receipt format v1 / v1.1 wire shapes (DESIGN.md "Receipt format v1"; spec "Turn event", "Turn
 * envelope", "Receipt", "Offline verification"; docs/receipts.md): TypeBox schemas of the receipt
 * object, envelope, proof export, receipt detail and bundle, with their types derived. The pure
 * verifier (`verifier/`) and the routes share these; the formulas live in `verifier/format.ts`.
 * v1.1 (issue 11 item 3) adds `format` to the proof export and the redacted suffix row.
 *
 * Property order of each schema is the order the service answers today (response schemas
 * serialise in schema order): the envelope payload is stored as JCS text and answered parsed, so
 * its keys come in JCS (sorted) order.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { OrNull } from '../../../shared/kit/schema.js';
import { Nullable, StringEnum } from './common.js';

/** `detail_type` of envelopes and anchor rows, fixed by the spec ("Versioning" 3). */
export const ENVELOPE_DETAIL_TYPE = 'turn_envelope_v1';
/** Canonicalization label carried in every envelope. */
export const CANONICALIZATION_VERSION = 'rfc8785-v1';
/** Action of the audit row that anchors a sealed envelope (spec "Audit actions"). */
export const ANCHOR_ACTION = 'turn.envelope.sealed';
/** resource_type of the anchor row. */
export const ANCHOR_RESOURCE_TYPE = 'turn';
/** The receipt tier this service issues. */
export const RECEIPT_TIER = 'attestable';

/** Receipt status (spec "States and transitions"). */
export const ReceiptStatusSchema = StringEnum(['pending', 'sealed', 'verified'] as const);
/** Receipt status. */
export type ReceiptStatus = Static<typeof ReceiptStatusSchema>;

/** Envelope status (spec "Turn envelope"). */
export const EnvelopeStatusSchema = StringEnum(['completed', 'failed'] as const);
/** Envelope status. */
export type EnvelopeStatus = Static<typeof EnvelopeStatusSchema>;

/** Why a turn was sealed (spec "Turn envelope"). */
export const SealReasonSchema = StringEnum(['terminal_event', 'watermark_timeout', 'manual'] as const);
/** Why a turn was sealed. */
export type SealReason = Static<typeof SealReasonSchema>;

/**
 * A turn event exactly as hashed into a leaf (spec "Turn event"; DESIGN.md leaf rule): these ten
 * keys, `emitter_instance` null if none, `occurred_at` RFC 3339 UTC, `payload_json` the stored text.
 */
export const LeafEventSchema = Type.Object({
  turn_id: Type.String(),
  event_id: Type.String(),
  tenant_id: Type.String(),
  principal_id: Type.String(),
  emitter_service: Type.String(),
  emitter_instance: Nullable(Type.String()),
  /** RFC 3339 UTC string. */
  occurred_at: Type.String(),
  sequence_in_service: Type.Integer(),
  payload_type: Type.String(),
  /** The stored JSON text, hashed as a string. */
  payload_json: Type.String(),
});
/** A turn event as hashed into a leaf. */
export type LeafEvent = Static<typeof LeafEventSchema>;

/** The signed envelope payload (spec "Turn envelope"), exactly these keys (JCS order). */
export const EnvelopePayloadSchema = Type.Object({
  canonicalization_version: StringEnum([CANONICALIZATION_VERSION] as const),
  detail_type: StringEnum([ENVELOPE_DETAIL_TYPE] as const),
  event_count: Type.Integer(),
  event_ids: Type.Array(Type.String()),
  /** `H(0x00 || JCS(event))` per event, lowercase hex, in leaf order. */
  leaf_hashes: Type.Array(Type.String()),
  /** RFC 6962 root over leaf_hashes, lowercase hex. */
  merkle_root: Type.String(),
  seal_reason: SealReasonSchema,
  status: EnvelopeStatusSchema,
  tenant_id: Type.String(),
  turn_id: Type.String(),
});
/** The signed envelope payload. */
export type EnvelopePayload = Static<typeof EnvelopePayloadSchema>;

/** Detail of the anchoring audit row (DESIGN.md), exactly these keys. */
export const AnchorDetailSchema = Type.Object({
  turn_id: Type.String(),
  status: EnvelopeStatusSchema,
  seal_reason: SealReasonSchema,
  event_count: Type.Integer(),
  merkle_root: Type.String(),
  /** H(JCS(envelope payload)). */
  envelope_hash: Type.String(),
  envelope_signature: Type.String(),
});
/** Detail of the anchoring audit row. */
export type AnchorDetail = Static<typeof AnchorDetailSchema>;

/** The receipt object of chat responses and receipt routes (spec "Receipt"). Not signed. */
export const ReceiptObjectSchema = Type.Object({
  /** ULID. */
  id: Type.String(),
  /** ULID of the turn. */
  turn_id: Type.String(),
  /** Always `attestable`. */
  tier: Type.String(),
  status: ReceiptStatusSchema,
  sealed: Type.Boolean(),
  /** `/v1/receipts/{turn_id}`. */
  receipt_url: Type.String(),
  /** `/v1/receipts/{turn_id}/proof`. */
  proof_url: Type.String(),
  /** `/v1/receipts/{turn_id}/bundle`. */
  bundle_url: Type.String(),
});
/** The receipt object. */
export type ReceiptObject = Static<typeof ReceiptObjectSchema>;

/** Signature algorithm of receipt format v2's public signatures (issue 22). */
export const PUBLIC_SIGNATURE_ALG = 'Ed25519';

/**
 * Receipt format v2 (issue 22 item 2; docs/receipt-format-v2.md): the Ed25519 signature of
 * `JCS({payload, audit_log_id, audit_seq})` under the published receipt key `kid` (RFC 7638
 * thumbprint, `GET /v1/receipts/keys`); `sig` is the 64-byte signature in base64url.
 */
export const PublicSignatureSchema = Type.Object({
  alg: StringEnum([PUBLIC_SIGNATURE_ALG] as const),
  kid: Type.String(),
  sig: Type.String(),
});
/** An envelope's public signature (v2). */
export type PublicSignature = Static<typeof PublicSignatureSchema>;

/**
 * The signed envelope plus its anchor (DESIGN.md proof export `envelope`). Receipt format v2 adds
 * `public_signature` (null for envelopes sealed before issue 22); v1 / v1.1 envelopes lack the key.
 */
export const EnvelopeRecordSchema = Type.Object({
  payload: EnvelopePayloadSchema,
  /** HMAC(JCS(payload)), lowercase hex. */
  signature: Type.String(),
  key_version: Type.String(),
  audit_log_id: Type.Integer(),
  audit_seq: Type.Integer(),
  audit_previous_hash: Type.String(),
  audit_signature: Type.String(),
  audit_chain_hash: Type.String(),
  public_signature: Type.Optional(OrNull(PublicSignatureSchema)),
});
/** The signed envelope plus its anchor. */
export type EnvelopeRecord = Static<typeof EnvelopeRecordSchema>;

/** One audit chain row of a proof suffix, in full (v1 and v1.1). */
export const SuffixRowSchema = Type.Object({
  id: Type.Integer(),
  seq: Type.Integer(),
  /** JCS text of the signed fields. */
  signed_payload: Type.String(),
  signature: Type.String(),
  previous_hash: Type.String(),
  key_version: Type.String(),
  chain_hash: Type.String(),
});
/** One audit chain row of a proof suffix, in full. */
export type SuffixRow = Static<typeof SuffixRowSchema>;

/**
 * The `format` of a v1.1 proof export (docs/receipts.md; issue 11 item 3). A v1 export has no
 * `format` key. v1.1 allows `RedactedSuffixRow`s in the suffix.
 */
export const RECEIPT_FORMAT_V1_1 = '1.1';
/**
 * The `format` of a v2 proof export (issue 22; docs/receipt-format-v2.md): v1.1 plus the envelope's
 * `public_signature` and the proof's `checkpoint` (a C2SP signed note, or null).
 */
export const RECEIPT_FORMAT_V2 = '2';

/**
 * A suffix row of another principal in a non-admin v1.1 export (issue 11 item 3): the link fields
 * and `signed_payload_sha256` = SHA-256 (lowercase hex) of the UTF-8 bytes of the row's exact
 * `signed_payload` text, in place of the payload. `chain_hash` = H(JCS({id, previous_hash,
 * signature})) needs no payload, so continuity still verifies; the HMAC cannot be checked offline.
 */
export const RedactedSuffixRowSchema = Type.Object({
  id: Type.Integer(),
  seq: Type.Integer(),
  /** SHA-256 hex of the UTF-8 `signed_payload` text this row stands for. */
  signed_payload_sha256: Type.String(),
  signature: Type.String(),
  previous_hash: Type.String(),
  key_version: Type.String(),
  chain_hash: Type.String(),
});
/** A redacted suffix row (v1.1). */
export type RedactedSuffixRow = Static<typeof RedactedSuffixRowSchema>;

/** A row of a proof suffix: in full, or (v1.1, another principal's row) redacted. */
export const ProofSuffixRowSchema = Type.Union([SuffixRowSchema, RedactedSuffixRowSchema]);
/** A row of a proof suffix: in full or redacted. */
export type ProofSuffixRow = Static<typeof ProofSuffixRowSchema>;

/** True when `row` is a redacted (v1.1) row: it carries `signed_payload_sha256`, not `signed_payload`. */
export function isRedactedRow(row: ProofSuffixRow): row is RedactedSuffixRow {
  return !('signed_payload' in row);
}

/**
 * Proof export: `GET /v1/receipts/{turn_id}/proof`. suffix[0] is the anchoring row, then every later
 * row. The service answers `format: "1.1"`; an export without `format` is v1 (every row in full).
 */
export const ProofExportSchema = Type.Object({
  format: Type.Optional(StringEnum([RECEIPT_FORMAT_V1_1, RECEIPT_FORMAT_V2] as const)),
  receipt: ReceiptObjectSchema,
  envelope: EnvelopeRecordSchema,
  audit_chain: Type.Object({ suffix: Type.Array(ProofSuffixRowSchema) }),
  /** v2: the first signed checkpoint at or after the anchor's seq (C2SP signed note text), or null when none was made yet. */
  checkpoint: Type.Optional(Nullable(Type.String())),
});
/** Proof export. */
export type ProofExport = Static<typeof ProofExportSchema>;

/** Receipt detail: `GET /v1/receipts/{turn_id}`; events in leaf order. */
export const ReceiptDetailSchema = Type.Object({
  receipt: ReceiptObjectSchema,
  envelope: EnvelopeRecordSchema,
  events: Type.Array(LeafEventSchema),
});
/** Receipt detail. */
export type ReceiptDetail = Static<typeof ReceiptDetailSchema>;

/** Bundle: `GET /v1/receipts/{turn_id}/bundle`. */
export const ReceiptBundleSchema = Type.Object({ detail: ReceiptDetailSchema, proof: ProofExportSchema });
/** Bundle. */
export type ReceiptBundle = Static<typeof ReceiptBundleSchema>;

/** Identifiers of the verifier's checks, in the order they run. */
export const CHECK_IDS = ['structure', 'binding', 'leaves', 'merkle_root', 'envelope_hmac', 'anchor', 'suffix_hmac', 'suffix_continuity'] as const;
/**
 * Checks of the public-key verification (issue 22 item 4), beside `CHECK_IDS`: the envelope's
 * Ed25519 signature and the checkpoint note's signature and link to the suffix.
 */
export const PUBLIC_CHECK_IDS = ['envelope_signature', 'checkpoint'] as const;
/** A check identifier. */
export type CheckId = (typeof CHECK_IDS)[number] | (typeof PUBLIC_CHECK_IDS)[number];

/**
 * What a verification could check of the chain suffix (issue 11 item 3; docs/receipts.md): how
 * many rows it had in full (HMAC, signed fields and links checked) and how many redacted (links
 * only); `redacted_tail` counts the redacted rows after the last full row, whose links no later
 * signed row pins. `format` is the proof export's format (`1` when it has none).
 */
export const SuffixCoverageSchema = Type.Object({
  format: StringEnum(['1', RECEIPT_FORMAT_V1_1, RECEIPT_FORMAT_V2] as const),
  rows: Type.Integer(),
  full: Type.Integer(),
  redacted: Type.Integer(),
  redacted_tail: Type.Integer(),
});
/** What a verification could check of the chain suffix. */
export type SuffixCoverage = Static<typeof SuffixCoverageSchema>;

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
  | 'CHAIN_CONTINUITY_ERROR'
  /** Nesting deeper than the verifier's limit (issue 11 item 4): refused, never walked. */
  | 'INPUT_TOO_DEEP'
  /** Input larger than the verifier's limit (issue 11 item 4). */
  | 'INPUT_TOO_LARGE'
  /** v2: the envelope's Ed25519 signature does not verify, or is absent where required. */
  | 'PUBLIC_SIGNATURE_ERROR'
  /** v2: no pinned public key has the `kid` (or note key hash) named. */
  | 'UNKNOWN_KID'
  /** v2: the checkpoint note is malformed, its signature fails, or it disagrees with the suffix. */
  | 'CHECKPOINT_ERROR'
  /** A check that could not be made with the material given (e.g. an HMAC check without the secret). */
  | 'NOT_CHECKED';
