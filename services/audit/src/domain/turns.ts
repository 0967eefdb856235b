/**
 * Turn events and sealing (spec "Turn event", "Turn envelope", "States and transitions", "Events";
 * DESIGN.md "Receipt format v1").
 *
 * Ingestion: events are keyed (tenant_id, turn_id, event_id); a re-delivered event is a no-op
 * (`duplicate`), an event for a sealed turn is rejected (`turn_sealed`). The first event of a turn
 * creates it with a pending receipt. A terminal event (`turn_sealed`, `turn_failed`) seals the turn
 * in the same transaction, after the rest of its batch is stored.
 *
 * Sealing: events in leaf order, leaves `H(0x00 || JCS(event))`, RFC 6962 root, envelope signed
 * with the active key, anchored by a `turn.envelope.sealed` audit row: envelope, anchor row,
 * checkpoint and receipt state change commit together.
 */
import { monotonicFactory } from 'ulid';
import type { AuditStore, TurnEventRecord, TurnRecord } from '../store/audit-store.js';
import {
  ANCHOR_ACTION, ANCHOR_RESOURCE_TYPE, CANONICALIZATION_VERSION, ENVELOPE_DETAIL_TYPE,
  anchorDetailOf, compareEvents, envelopeSignature, leafHash, leafEventOf,
  type EnvelopePayload, type EnvelopeStatus, type Json, type LeafEvent, type SealReason,
} from '../verifier/format.js';
import { jcs } from '../../../shared/identity/jcs.js';
import { merkleRootHex } from '../verifier/merkle.js';
import type { ChainWriter, WriterTx } from './chain-writer.js';
import { nodeHashProvider } from './keys.js';

/** Payload types the spec names (plus the contract-only cap token events). */
export const PAYLOAD_TYPES: ReadonlySet<string> = new Set([
  'turn_started', 'turn_sealed', 'turn_failed', 'prompt_generated', 'tool_called', 'tool_returned', 'model_invoked',
  'model_response', 'guardrail_verdict', 'memory_op', 'rag_chunks_retrieved', 'cap_token_issued', 'cap_token_rejected',
]);

/** Terminal payload types (spec "Events"). */
export const TERMINAL_TYPES: ReadonlySet<string> = new Set(['turn_sealed', 'turn_failed']);

/** Per-event rejection reasons of `POST /v1/turns/events`. */
export type RejectReason =
  | 'turn_sealed' | 'invalid_event' | 'invalid_turn_id' | 'invalid_event_id' | 'invalid_occurred_at'
  | 'invalid_payload_type' | 'invalid_payload_json' | 'invalid_sequence';

/** Result of an ingestion batch (the body the turn-event client expects). */
export interface IngestResult {
  accepted: number;
  duplicates: number;
  rejected: Array<{ event_id: string | null; reason: RejectReason }>;
}

const ID_RE = /^[A-Za-z0-9_.:-]{1,128}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const MAX_TEXT = 256;
/** Largest payload_json accepted, characters (bodies belong in artifacts). */
export const MAX_PAYLOAD_JSON = 256 * 1024;

const nextUlid = monotonicFactory();

/**
 * Validate and normalise one wire event under the pinned tenant. occurred_at becomes
 * `YYYY-MM-DDTHH:mm:ss.sssZ` (so string order is time order); emitter_instance absent -> null.
 */
export function normaliseEvent(raw: unknown, tenantId: string): { ok: true; event: LeafEvent } | { ok: false; event_id: string | null; reason: RejectReason } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, event_id: null, reason: 'invalid_event' };
  const r = raw as Record<string, unknown>;
  const eventId = typeof r.event_id === 'string' ? r.event_id : null;
  const bad = (reason: RejectReason) => ({ ok: false as const, event_id: eventId, reason });
  if (eventId === null || !ID_RE.test(eventId)) return bad('invalid_event_id');
  if (typeof r.turn_id !== 'string' || !ID_RE.test(r.turn_id)) return bad('invalid_turn_id');
  for (const k of ['principal_id', 'emitter_service'] as const) {
    if (typeof r[k] !== 'string' || (r[k] as string).length === 0 || (r[k] as string).length > MAX_TEXT) return bad('invalid_event');
  }
  const inst = r.emitter_instance;
  if (inst !== undefined && inst !== null && (typeof inst !== 'string' || inst.length > MAX_TEXT)) return bad('invalid_event');
  if (typeof r.occurred_at !== 'string' || !RFC3339.test(r.occurred_at)) return bad('invalid_occurred_at');
  const t = Date.parse(r.occurred_at);
  if (!Number.isFinite(t)) return bad('invalid_occurred_at');
  const occurred = new Date(t).toISOString();
  if (occurred.length !== 24) return bad('invalid_occurred_at');
  if (typeof r.sequence_in_service !== 'number' || !Number.isSafeInteger(r.sequence_in_service) || r.sequence_in_service < 0) return bad('invalid_sequence');
  if (typeof r.payload_type !== 'string' || !PAYLOAD_TYPES.has(r.payload_type)) return bad('invalid_payload_type');
  if (typeof r.payload_json !== 'string' || r.payload_json.length > MAX_PAYLOAD_JSON) return bad('invalid_payload_json');
  try { JSON.parse(r.payload_json); } catch { return bad('invalid_payload_json'); }
  return {
    ok: true,
    event: {
      turn_id: r.turn_id, event_id: eventId, tenant_id: tenantId, principal_id: r.principal_id as string,
      emitter_service: r.emitter_service as string, emitter_instance: (inst as string | null | undefined) ?? null, occurred_at: occurred,
      sequence_in_service: r.sequence_in_service, payload_type: r.payload_type, payload_json: r.payload_json,
    },
  };
}

/** Events of a turn in leaf order, as leaf objects (exactly the ten leaf fields). */
export function orderedEvents(rows: readonly TurnEventRecord[]): LeafEvent[] {
  return rows.map((r) => leafEventOf(r)).sort(compareEvents);
}

/** Build the envelope payload of a turn from its ordered events. */
export function buildEnvelopePayload(tenantId: string, turnId: string, status: EnvelopeStatus, reason: SealReason, events: readonly LeafEvent[]): EnvelopePayload {
  const leaves = events.map((e) => leafHash(e, nodeHashProvider));
  return {
    detail_type: ENVELOPE_DETAIL_TYPE, tenant_id: tenantId, turn_id: turnId, status, seal_reason: reason,
    canonicalization_version: CANONICALIZATION_VERSION, event_count: events.length, event_ids: events.map((e) => e.event_id),
    leaf_hashes: leaves, merkle_root: merkleRootHex(leaves, nodeHashProvider),
  };
}

/** Turn ingestion and sealing over the store and the single writer. */
export class TurnService {
  constructor(private readonly store: AuditStore, private readonly writer: ChainWriter, private readonly nowMs: () => number = Date.now) {}

  /**
   * Ingest a batch under the pinned tenant. Invalid events are rejected one by one; the rest are
   * stored, and turns whose terminal event arrived are sealed, all in one transaction.
   */
  async ingest(rawEvents: readonly unknown[], tenantId: string): Promise<IngestResult> {
    const result: IngestResult = { accepted: 0, duplicates: 0, rejected: [] };
    const valid: LeafEvent[] = [];
    for (const raw of rawEvents) {
      const n = normaliseEvent(raw, tenantId);
      if (n.ok) valid.push(n.event); else result.rejected.push({ event_id: n.event_id, reason: n.reason });
    }
    if (valid.length === 0) return result;
    return this.writer.submit((tx) => {
      const received = this.nowMs();
      const toSeal = new Set<string>();
      for (const e of valid) {
        if (this.store.eventExists(tenantId, e.turn_id, e.event_id)) { result.duplicates++; continue; }
        const turn = this.store.getTurn(tenantId, e.turn_id);
        if (turn && turn.status !== 'pending') { result.rejected.push({ event_id: e.event_id, reason: 'turn_sealed' }); continue; }
        if (!turn) this.store.insertTurn(tenantId, e.turn_id, nextUlid(), e.principal_id, received);
        this.store.insertEvent({ ...e, received_ms: received });
        result.accepted++;
        if (TERMINAL_TYPES.has(e.payload_type)) {
          this.store.setTerminal(tenantId, e.turn_id, e.payload_type);
          toSeal.add(e.turn_id);
        }
      }
      for (const turnId of toSeal) this.sealInTx(tx, tenantId, turnId, 'terminal_event');
      return result;
    });
  }

  /**
   * Seal one pending turn inside a writer job. Status: the first terminal event decides for
   * `terminal_event`; otherwise `completed` when a `turn_sealed` event is present, else `failed`.
   * @returns the payload, or null when the turn is unknown or already sealed.
   */
  sealInTx(tx: WriterTx, tenantId: string, turnId: string, reason: SealReason): EnvelopePayload | null {
    const turn = this.store.getTurn(tenantId, turnId);
    if (!turn || turn.status !== 'pending') return null;
    const events = orderedEvents(this.store.eventsOfTurn(tenantId, turnId));
    const status = statusFor(turn, reason, events);
    const payload = buildEnvelopePayload(tenantId, turnId, status, reason, events);
    const ring = tx.keys();
    const signature = envelopeSignature(payload, ring.active.key, nodeHashProvider);
    const row = tx.append({
      tenant_id: tenantId, user_id: turn.principal_id, action: ANCHOR_ACTION, resource_type: ANCHOR_RESOURCE_TYPE, resource_id: turnId,
      detail_type: ENVELOPE_DETAIL_TYPE, detail: anchorDetailOf(payload, signature, nodeHashProvider) as unknown as Json,
    }, ring);
    this.store.insertEnvelope({
      tenant_id: tenantId, turn_id: turnId, payload: jcs(payload), signature, key_version: ring.active.version,
      audit_log_id: row.id, audit_seq: row.seq, audit_previous_hash: row.previous_hash, audit_signature: row.signature,
      audit_chain_hash: row.chain_hash, sealed_at: row.timestamp,
    });
    this.store.markSealed(tenantId, turnId, row.timestamp, row.seq);
    return payload;
  }

  /** Seal one turn now (seal_reason `manual`). @returns whether it was sealed by this call. */
  async sealNow(tenantId: string, turnId: string, reason: SealReason = 'manual'): Promise<boolean> {
    return this.writer.submit((tx) => this.sealInTx(tx, tenantId, turnId, reason) !== null);
  }

  /**
   * One background pass: seal up to `limit` pending turns created more than `watermarkSeconds`
   * ago (seal_reason `watermark_timeout`). @returns how many were sealed.
   */
  async sealStalled(watermarkSeconds: number, limit: number): Promise<number> {
    const stalled = this.store.stalledTurns(this.nowMs() - watermarkSeconds * 1000, limit);
    if (stalled.length === 0) return 0;
    return this.writer.submit((tx) => {
      let n = 0;
      for (const t of stalled) if (this.sealInTx(tx, t.tenant_id, t.turn_id, 'watermark_timeout')) n++;
      return n;
    });
  }
}

function statusFor(turn: TurnRecord, reason: SealReason, events: readonly LeafEvent[]): EnvelopeStatus {
  if (reason === 'terminal_event' && turn.terminal) return turn.terminal === 'turn_failed' ? 'failed' : 'completed';
  return events.some((e) => e.payload_type === 'turn_sealed') ? 'completed' : 'failed';
}
