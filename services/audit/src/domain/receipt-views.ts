/**
 * The receipt object and envelope record as the routes answer them (spec "Receipt"; DESIGN.md
 * "Receipt format v1": proof export `envelope`) and the receipt list's history items (issue 13
 * item 7). Pure mappings from stored rows.
 */
import { RECEIPT_TIER, type EnvelopeRecord, type PublicSignature, type ReceiptObject } from '../contracts/receipt-format.js';
import { RECEIPT_KINDS, RECEIPT_OUTCOMES, type ReceiptKind, type ReceiptListItem, type ReceiptOutcome } from '../contracts/receipts.js';
import type { EnvelopePayload } from '../verifier/format.js';
import type { EnvelopeRow, TurnRecord } from './ports.js';

/** The receipt object of a turn (spec "Receipt"): pending until sealed, URLs under `/v1/receipts/{turn_id}`. */
export function receiptOf(t: TurnRecord): ReceiptObject {
  const base = `/v1/receipts/${encodeURIComponent(t.turn_id)}`;
  return {
    id: t.receipt_id, turn_id: t.turn_id, tier: RECEIPT_TIER, status: t.status, sealed: t.status !== 'pending',
    receipt_url: base, proof_url: `${base}/proof`, bundle_url: `${base}/bundle`,
  };
}

/**
 * The envelope record of a stored envelope (payload parsed from its JCS text). With
 * `publicSignature` given (receipt format v2, issue 22: the signature, or null for an envelope
 * sealed before), the record carries `public_signature`; without it the v1 shape is kept.
 */
export function envelopeRecordOf(e: EnvelopeRow, publicSignature?: PublicSignature | null): EnvelopeRecord {
  const out: EnvelopeRecord = {
    payload: JSON.parse(e.payload) as EnvelopePayload, signature: e.signature, key_version: e.key_version, audit_log_id: e.audit_log_id,
    audit_seq: e.audit_seq, audit_previous_hash: e.audit_previous_hash, audit_signature: e.audit_signature, audit_chain_hash: e.audit_chain_hash,
  };
  if (publicSignature !== undefined) out.public_signature = publicSignature;
  return out;
}

/**
 * A list item of `GET /v1/receipts`: the receipt, when it was sealed and verified, and what the
 * turn was (issue 13 item 7; columns set at the seal, `kind` `other` for a row without them).
 */
export function historyItemOf(t: TurnRecord): ReceiptListItem {
  const kind = (RECEIPT_KINDS as readonly string[]).includes(t.kind ?? '') ? t.kind as ReceiptKind : 'other';
  const outcome = (RECEIPT_OUTCOMES as readonly string[]).includes(t.outcome ?? '') ? t.outcome as ReceiptOutcome : null;
  return {
    ...receiptOf(t), sealed_at: t.sealed_at, verified_at: t.verified_at,
    kind, summary: t.summary ?? null, method: t.method ?? null, route: t.route ?? null, user_id: t.principal_id,
    created_at: t.started_at ?? new Date(t.created_ms).toISOString(), outcome, http_status: t.http_status ?? null,
  };
}
