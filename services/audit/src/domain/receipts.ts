/**
 * Receipts (spec "Receipt", "States and transitions", "Audit and receipts"; DESIGN.md "Receipt
 * format v1": proof export and bundle).
 *
 * A receipt exists from a turn's first event (`pending`), becomes `sealed` with the envelope and
 * `verified` once `POST /v1/receipts/{turn_id}/verify` checked its bundle server-side. Detail, proof
 * and bundle exist only once sealed. The `...For` methods are the use cases of the routes: they
 * apply the turn service's visibility and answer 404 `receipt_not_sealed` before the seal.
 *
 * Proof exports are receipt format v2 when the v2 ports are wired (issue 22: the envelope's
 * `public_signature` and the first `checkpoint` at or after the anchor; docs/receipt-format-v2.md),
 * else v1.1. Either way (issue 11 item 3; docs/receipts.md): for a caller who does
 * not see the whole tenant, every suffix row after the anchor whose `user_id` is not the caller's
 * is redacted to its link fields and `signed_payload_sha256`; admins and service accounts export
 * every row in full.
 */
import { DomainError, invalidInput } from '../../../shared/kit/domain-error.js';
import {
  RECEIPT_FORMAT_V1_1, RECEIPT_FORMAT_V2, type EnvelopeRecord, type ProofExport, type ProofSuffixRow, type ReceiptBundle, type ReceiptDetail,
} from '../contracts/receipt-format.js';
import type { ReceiptListQuery, ReceiptPage, ReceiptVerifyResponse } from '../contracts/receipts.js';
import { chainHash } from '../verifier/format.js';
import type { VerificationReport } from '../verifier/types.js';
import { verifyBundle } from '../verifier/verify.js';
import { ownerFilter, type Viewer } from './access.js';
import { orderedEvents } from './events.js';
import { nodeHashProvider, sha256HexFast, type KeyProvider } from './keys.js';
import type { AuditLogStore, AuditRowRecord, EnvelopeStore, TurnEventStore, TurnRecord, TurnStore } from './ports.js';
import { likePattern } from './receipt-history.js';
import { envelopeRecordOf, historyItemOf, receiptOf } from './receipt-views.js';
import { publicSignatureOf, type EnvelopeSignatureStore } from './receipt-signing.js';
import type { CheckpointStore } from './checkpoints.js';
import type { AsyncPort } from './async-ports.js';

/** Receipt format v2 sources (issue 22): envelope signatures and checkpoints. */
export interface ReceiptV2Ports {
  signatures: AsyncPort<EnvelopeSignatureStore>;
  checkpoints: AsyncPort<Pick<CheckpointStore, 'firstAtOrAfter'>>;
}

/** The filters of `GET /v1/receipts` (issue 13 item 7). */
export type ReceiptListFilter = Pick<ReceiptListQuery, 'kind' | 'q' | 'user_id'>;

/** 404 `receipt_not_sealed` for a turn that exists but is not sealed yet (spec "Errors"). */
export function notSealed(turnId: string): DomainError<'receipt_not_sealed'> {
  return new DomainError('receipt_not_sealed', `turn ${turnId} is not sealed yet`);
}

/**
 * One row of a proof suffix as exported (receipt format v1.1): in full, or, when `redact` is set,
 * its link fields with `signed_payload_sha256` = SHA-256 hex of the exact signed payload text.
 * `chain_hash` = H(JCS({id, previous_hash, signature})) is computed either way.
 */
export function suffixRowOf(r: AuditRowRecord, redact: boolean): ProofSuffixRow {
  const chain_hash = chainHash(r.id, r.previous_hash, r.signature, nodeHashProvider);
  if (redact) {
    return {
      id: r.id, seq: r.seq, signed_payload_sha256: sha256HexFast(r.signed_payload), signature: r.signature, previous_hash: r.previous_hash,
      key_version: r.key_version, chain_hash,
    };
  }
  return { id: r.id, seq: r.seq, signed_payload: r.signed_payload, signature: r.signature, previous_hash: r.previous_hash, key_version: r.key_version, chain_hash };
}

/** The tables receipts read (SQLite: sync; PostgreSQL: async). */
export interface ReceiptPorts {
  turns: AsyncPort<TurnStore>;
  events: AsyncPort<TurnEventStore>;
  envelopes: AsyncPort<EnvelopeStore>;
  log: AsyncPort<Pick<AuditLogStore, 'suffixFrom'>>;
}

/** Who may see a turn (the turn service). */
export interface TurnVisibility {
  /** @throws DomainError `turn_not_found` when absent or not the viewer's. */
  visibleTurn(tenantId: string, viewer: Viewer, turnId: string): Promise<TurnRecord>;
}

/** Read side of receipts over the store, and their server-side verification. */
export class ReceiptService {
  private readonly turns: AsyncPort<TurnStore>;
  private readonly events: AsyncPort<TurnEventStore>;
  private readonly envelopes: AsyncPort<EnvelopeStore>;
  private readonly log: AsyncPort<Pick<AuditLogStore, 'suffixFrom'>>;

  /**
   * @param ports the tables receipts read; @param keys the key ring in force (verification);
   * @param visibility who may see which turn (the turn service).
   */
  constructor(ports: ReceiptPorts, private readonly keys: KeyProvider, private readonly visibility: TurnVisibility, private readonly v2?: ReceiptV2Ports) {
    this.turns = ports.turns;
    this.events = ports.events;
    this.envelopes = ports.envelopes;
    this.log = ports.log;
  }

  /** The turn, or undefined when the audit service never saw it. */
  async turn(tenantId: string, turnId: string): Promise<TurnRecord | undefined> {
    return await this.turns.get(tenantId, turnId);
  }

  /** The envelope record of a sealed turn, or null. */
  async envelope(tenantId: string, turnId: string): Promise<EnvelopeRecord | null> {
    const e = await this.envelopes.get(tenantId, turnId);
    if (!e) return null;
    return this.v2 ? envelopeRecordOf(e, publicSignatureOf(await this.v2.signatures.get(tenantId, turnId))) : envelopeRecordOf(e);
  }

  /** Receipt detail `{receipt, envelope, events}` of a sealed turn, or null before the seal. */
  async detail(tenantId: string, turnId: string): Promise<ReceiptDetail | null> {
    const t = await this.turns.get(tenantId, turnId);
    const env = await this.envelope(tenantId, turnId);
    if (!t || !env) return null;
    // Exactly the sealed events, in the envelope's order (none arrive after the seal).
    return { receipt: receiptOf(t), envelope: env, events: orderedEvents(await this.events.ofTurn(tenantId, turnId)) };
  }

  /**
   * Proof export `{format: "1.1", receipt, envelope, audit_chain: {suffix}}`, or null before the
   * seal. `redactFor` null exports every row in full; a principal id redacts every row after the
   * anchor (suffix[0], always in full) whose `user_id` is not that principal (system rows, whose
   * `user_id` is null, included).
   */
  async proof(tenantId: string, turnId: string, redactFor: string | null = null): Promise<ProofExport | null> {
    const t = await this.turns.get(tenantId, turnId);
    const env = await this.envelope(tenantId, turnId);
    if (!t || !env) return null;
    const suffix = (await this.log.suffixFrom(tenantId, env.audit_seq))
      .map((r, i) => suffixRowOf(r, redactFor !== null && i > 0 && r.user_id !== redactFor));
    if (!this.v2) return { format: RECEIPT_FORMAT_V1_1, receipt: receiptOf(t), envelope: env, audit_chain: { suffix } };
    // Issue 22 item 3: the first checkpoint at or after the anchor; it lies within the suffix read above
    // unless it was signed in between (then the next export carries it).
    const cp = await this.v2.checkpoints.firstAtOrAfter(tenantId, env.audit_seq);
    const last = suffix[suffix.length - 1];
    const checkpoint = cp && last && cp.seq <= last.seq ? cp.note : null;
    return { format: RECEIPT_FORMAT_V2, receipt: receiptOf(t), envelope: env, audit_chain: { suffix }, checkpoint };
  }

  /** Bundle `{detail, proof}`, or null before the seal; `redactFor` as for `proof`. */
  async bundle(tenantId: string, turnId: string, redactFor: string | null = null): Promise<ReceiptBundle | null> {
    const detail = await this.detail(tenantId, turnId);
    const proof = await this.proof(tenantId, turnId, redactFor);
    return detail && proof ? { detail, proof } : null;
  }

  /** `GET /v1/receipts/:turn_id`. @throws DomainError `turn_not_found`, `receipt_not_sealed`. */
  async detailFor(tenantId: string, viewer: Viewer, turnId: string): Promise<ReceiptDetail> {
    await this.visibility.visibleTurn(tenantId, viewer, turnId);
    return (await this.detail(tenantId, turnId)) ?? throwNotSealed(turnId);
  }

  /**
   * `GET /v1/receipts/:turn_id/proof` and `GET /v1/turns/:turn_id/proof`: other principals' rows
   * redacted unless the viewer sees the whole tenant (admins, service accounts).
   * @throws `turn_not_found`, `receipt_not_sealed`.
   */
  async proofFor(tenantId: string, viewer: Viewer, turnId: string): Promise<ProofExport> {
    await this.visibility.visibleTurn(tenantId, viewer, turnId);
    return (await this.proof(tenantId, turnId, ownerFilter(viewer))) ?? throwNotSealed(turnId);
  }

  /** `GET /v1/receipts/:turn_id/bundle`, redacted as `proofFor`. @throws `turn_not_found`, `receipt_not_sealed`. */
  async bundleFor(tenantId: string, viewer: Viewer, turnId: string): Promise<ReceiptBundle> {
    await this.visibility.visibleTurn(tenantId, viewer, turnId);
    return (await this.bundle(tenantId, turnId, ownerFilter(viewer))) ?? throwNotSealed(turnId);
  }

  /**
   * Sealed receipts newest first (`GET /v1/receipts`): the whole tenant for admins and service
   * accounts, else the viewer's own. `cursor` is the opaque value of a previous page's `next_cursor`.
   * Issue 13 item 7: each item reads like history (`historyItemOf`), and `filter` narrows by kind
   * (`all` by default), a search over summary, route, method and turn id, and one user.
   * @throws DomainError 400 `invalid_request` (field `querystring.cursor`) on a cursor this service did not issue;
   * 403 `admin_required` when a viewer who does not see the whole tenant asks for another user's receipts.
   */
  async listFor(tenantId: string, viewer: Viewer, limit: number, cursor: string | undefined, filter: ReceiptListFilter = {}): Promise<ReceiptPage> {
    let before = Number.MAX_SAFE_INTEGER;
    if (cursor !== undefined) {
      const n = Number(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (!Number.isSafeInteger(n) || n <= 0) throw invalidInput('cursor is not a value this service issued', 'querystring.cursor');
      before = n;
    }
    const owner = ownerFilter(viewer);
    if (owner !== null && filter.user_id !== undefined && filter.user_id !== owner) {
      throw new DomainError('admin_required', 'only admins may list other users\' receipts');
    }
    const principalId = owner ?? filter.user_id ?? null;
    const kind = filter.kind === undefined || filter.kind === 'all' ? null : filter.kind;
    const like = likePattern(filter.q);
    // No kind and no search: the list as it always was.
    const rows = kind === null && like === null
      ? await this.turns.sealed(tenantId, before, limit + 1, principalId)
      : await this.turns.sealedPage(tenantId, { beforeSeq: before, limit: limit + 1, principalId, kind, like });
    const page = rows.slice(0, limit);
    const out: ReceiptPage = { items: page.map(historyItemOf) };
    if (rows.length > limit) out.next_cursor = Buffer.from(String(page[page.length - 1]!.sealed_seq), 'utf8').toString('base64url');
    return out;
  }

  /**
   * Verify a sealed turn's bundle server-side with the keys in force (`redactFor` as for `proof`:
   * the bundle that caller would export); when it holds, move the receipt to `verified` and record
   * when and by whom. @returns null before the seal.
   */
  async verify(tenantId: string, turnId: string, by: string, now: Date = new Date(), redactFor: string | null = null): Promise<{ report: VerificationReport; turn: TurnRecord } | null> {
    const bundle = await this.bundle(tenantId, turnId, redactFor);
    if (!bundle) return null;
    const report = verifyBundle(bundle, { keys: this.keys().byVersion, hash: nodeHashProvider });
    if (report.ok) await this.turns.markVerified(tenantId, turnId, now.toISOString(), by);
    return { report, turn: (await this.turns.get(tenantId, turnId))! };
  }

  /**
   * `POST /v1/receipts/:turn_id/verify` by `viewer` (recorded as `verified_by`): checks the bundle the
   * viewer would export, so the answer agrees with `svc-verify` on that file; `suffix` counts the
   * rows checked in full and by link only.
   * @throws DomainError `turn_not_found`, `receipt_not_sealed`.
   */
  async verifyFor(tenantId: string, viewer: Viewer, turnId: string, now: Date = new Date()): Promise<ReceiptVerifyResponse> {
    await this.visibility.visibleTurn(tenantId, viewer, turnId);
    const r = (await this.verify(tenantId, turnId, viewer.id, now, ownerFilter(viewer))) ?? throwNotSealed(turnId);
    return {
      ok: r.report.ok,
      // The server pipeline runs the eight HMAC-side checks only (`CHECK_IDS`).
      checks: r.report.checks.map((c) => ({ id: c.id as ReceiptVerifyResponse['checks'][number]['id'], title: c.title, ok: c.ok, detail: c.detail })),
      suffix: r.report.suffix!,
      receipt: receiptOf(r.turn), verified_at: r.turn.verified_at, verified_by: r.turn.verified_by,
    };
  }
}

function throwNotSealed(turnId: string): never {
  throw notSealed(turnId);
}
