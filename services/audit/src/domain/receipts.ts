/**
 * Receipts (spec "Receipt", "States and transitions", "Audit and receipts"; DESIGN.md "Receipt
 * format v1": proof export and bundle).
 *
 * A receipt exists from a turn's first event (`pending`), becomes `sealed` with the envelope and
 * `verified` once `POST /v1/receipts/{turn_id}/verify` checked its bundle server-side. Detail, proof
 * and bundle exist only once sealed.
 */
import type { AuditStore, TurnRecord } from '../store/audit-store.js';
import { chainHash, type EnvelopePayload } from '../verifier/format.js';
import type { EnvelopeRecord, ProofExport, ReceiptBundle, ReceiptDetail, ReceiptObject, VerificationReport } from '../verifier/types.js';
import { verifyBundle } from '../verifier/verify.js';
import { nodeHashProvider, type KeyProvider } from './keys.js';
import { orderedEvents } from './turns.js';

/** The receipt tier this service issues. */
export const RECEIPT_TIER = 'attestable';

/** A list item of `GET /v1/receipts`: the receipt plus when it was sealed / verified. */
export interface ReceiptListItem extends ReceiptObject {
  sealed_at: string | null;
  verified_at: string | null;
}

/** The receipt object of a turn (spec "Receipt"). */
export function receiptOf(t: TurnRecord): ReceiptObject {
  const base = `/v1/receipts/${encodeURIComponent(t.turn_id)}`;
  return {
    id: t.receipt_id, turn_id: t.turn_id, tier: RECEIPT_TIER, status: t.status, sealed: t.status !== 'pending',
    receipt_url: base, proof_url: `${base}/proof`, bundle_url: `${base}/bundle`,
  };
}

/** Read side of receipts over the store. */
export class ReceiptService {
  constructor(private readonly store: AuditStore, private readonly keys: KeyProvider) {}

  /** The turn, or undefined when the audit service never saw it. */
  turn(tenantId: string, turnId: string): TurnRecord | undefined {
    return this.store.getTurn(tenantId, turnId);
  }

  /** The envelope record of a sealed turn, or null. */
  envelope(tenantId: string, turnId: string): EnvelopeRecord | null {
    const e = this.store.getEnvelope(tenantId, turnId);
    if (!e) return null;
    return {
      payload: JSON.parse(e.payload) as EnvelopePayload, signature: e.signature, key_version: e.key_version, audit_log_id: e.audit_log_id,
      audit_seq: e.audit_seq, audit_previous_hash: e.audit_previous_hash, audit_signature: e.audit_signature, audit_chain_hash: e.audit_chain_hash,
    };
  }

  /** Receipt detail `{receipt, envelope, events}` of a sealed turn, or null before the seal. */
  detail(tenantId: string, turnId: string): ReceiptDetail | null {
    const t = this.store.getTurn(tenantId, turnId);
    const env = this.envelope(tenantId, turnId);
    if (!t || !env) return null;
    // Exactly the sealed events, in the envelope's order (none arrive after the seal).
    return { receipt: receiptOf(t), envelope: env, events: orderedEvents(this.store.eventsOfTurn(tenantId, turnId)) };
  }

  /** Proof export `{receipt, envelope, audit_chain: {suffix}}`, or null before the seal. */
  proof(tenantId: string, turnId: string): ProofExport | null {
    const t = this.store.getTurn(tenantId, turnId);
    const env = this.envelope(tenantId, turnId);
    if (!t || !env) return null;
    const suffix = this.store.suffixFrom(tenantId, env.audit_seq).map((r) => ({
      id: r.id, seq: r.seq, signed_payload: r.signed_payload, signature: r.signature, previous_hash: r.previous_hash,
      key_version: r.key_version, chain_hash: chainHash(r.id, r.previous_hash, r.signature, nodeHashProvider),
    }));
    return { receipt: receiptOf(t), envelope: env, audit_chain: { suffix } };
  }

  /** Bundle `{detail, proof}`, or null before the seal. */
  bundle(tenantId: string, turnId: string): ReceiptBundle | null {
    const detail = this.detail(tenantId, turnId);
    const proof = this.proof(tenantId, turnId);
    return detail && proof ? { detail, proof } : null;
  }

  /**
   * Sealed receipts newest first. `cursor` is the opaque value of a previous page's `next_cursor`;
   * `principalId` narrows to one owner (null: the whole tenant).
   * @throws TypeError on a malformed cursor.
   */
  list(tenantId: string, limit: number, cursor: string | undefined, principalId: string | null): { items: ReceiptListItem[]; next_cursor?: string } {
    let before = Number.MAX_SAFE_INTEGER;
    if (cursor !== undefined) {
      const n = Number(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (!Number.isSafeInteger(n) || n <= 0) throw new TypeError('bad cursor');
      before = n;
    }
    const rows = this.store.sealedTurns(tenantId, before, limit + 1, principalId);
    const page = rows.slice(0, limit);
    const items = page.map((t) => ({ ...receiptOf(t), sealed_at: t.sealed_at, verified_at: t.verified_at }));
    const out: { items: ReceiptListItem[]; next_cursor?: string } = { items };
    if (rows.length > limit) out.next_cursor = Buffer.from(String(page[page.length - 1]!.sealed_seq), 'utf8').toString('base64url');
    return out;
  }

  /**
   * Verify a sealed turn's bundle server-side with the keys in force; when it holds, move the
   * receipt to `verified` and record when and by whom. @returns null before the seal.
   */
  verify(tenantId: string, turnId: string, by: string, now: Date = new Date()): { report: VerificationReport; turn: TurnRecord } | null {
    const bundle = this.bundle(tenantId, turnId);
    if (!bundle) return null;
    const report = verifyBundle(bundle, { keys: this.keys().byVersion, hash: nodeHashProvider });
    if (report.ok) this.store.markVerified(tenantId, turnId, now.toISOString(), by);
    return { report, turn: this.store.getTurn(tenantId, turnId)! };
  }
}
