/**
 * The turn service (spec "Turn event", "Turn envelope", "States and transitions", "Events";
 * DESIGN.md "Receipt format v1"): ingestion, sealing, and who may see which turn.
 *
 * Ingestion: events are keyed (tenant_id, turn_id, event_id); a re-delivered event is a no-op
 * (`duplicate`), an event for a sealed turn is rejected (`turn_sealed`). The first event of a turn
 * creates it with a pending receipt. A terminal event (`turn_sealed`, `turn_failed`) seals the turn
 * in the same transaction, after the rest of its batch is stored.
 *
 * Sealing: events in leaf order, leaves `H(0x00 || JCS(event))`, RFC 6962 root, envelope signed
 * with the active key, anchored by a `turn.envelope.sealed` audit row: envelope, anchor row,
 * checkpoint and receipt state change commit together.
 *
 * Visibility (`access.ts`): admins and service accounts see every turn of the tenant, other users
 * the turns they started; a turn the caller may not see is `turn_not_found`, as if absent.
 */
import { monotonicFactory } from 'ulid';
import { jcs } from '../../../shared/identity/jcs.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { MAX_EVENTS_PER_BATCH, type IngestResult, type TurnView } from '../contracts/turns.js';
import {
  ANCHOR_ACTION, ANCHOR_RESOURCE_TYPE, CANONICALIZATION_VERSION, ENVELOPE_DETAIL_TYPE,
  anchorDetailOf, envelopeSignature, leafHash,
  type EnvelopePayload, type EnvelopeStatus, type Json, type LeafEvent, type SealReason,
} from '../verifier/format.js';
import { merkleRootHex } from '../verifier/merkle.js';
import { seesWholeTenant, type Viewer } from './access.js';
import type { AsyncPort } from './async-ports.js';
import { normaliseEvent, orderedEvents, TERMINAL_TYPES } from './events.js';
import { nodeHashProvider } from './keys.js';
import { aw, type Steps } from './maybe-async.js';
import type { EnvelopeStore, TurnEventStore, TurnRecord, TurnStore } from './ports.js';
import type { AuditWriter, JobTx } from './writer.js';
import { historyOf } from './receipt-history.js';
import { envelopeRecordOf, receiptOf } from './receipt-views.js';

const nextUlid = monotonicFactory();

/** Build the envelope payload of a turn from its ordered events. */
export function buildEnvelopePayload(tenantId: string, turnId: string, status: EnvelopeStatus, reason: SealReason, events: readonly LeafEvent[]): EnvelopePayload {
  const leaves = events.map((e) => leafHash(e, nodeHashProvider));
  return {
    detail_type: ENVELOPE_DETAIL_TYPE, tenant_id: tenantId, turn_id: turnId, status, seal_reason: reason,
    canonicalization_version: CANONICALIZATION_VERSION, event_count: events.length, event_ids: events.map((e) => e.event_id),
    leaf_hashes: leaves, merkle_root: merkleRootHex(leaves, nodeHashProvider),
  };
}

/** 404 `turn_not_found` (spec "Errors"). */
export function turnNotFound(turnId: string): DomainError<'turn_not_found'> {
  return new DomainError('turn_not_found', `no turn ${turnId}`);
}

/** The tables the turn service reads and writes (SQLite: sync; PostgreSQL: async). */
export interface TurnPorts {
  turns: AsyncPort<TurnStore>;
  events: AsyncPort<TurnEventStore>;
  envelopes: AsyncPort<EnvelopeStore>;
}

/** Turn ingestion, sealing and visibility over the store and the single writer. */
export class TurnService {
  private readonly turns: AsyncPort<TurnStore>;
  private readonly events: AsyncPort<TurnEventStore>;
  private readonly envelopes: AsyncPort<EnvelopeStore>;

  /**
   * @param ports the turn tables; @param writer the single writer (every write goes through it);
   * @param nowMs clock, Unix ms (test seam).
   */
  constructor(ports: TurnPorts, private readonly writer: AuditWriter, private readonly nowMs: () => number = Date.now) {
    this.turns = ports.turns;
    this.events = ports.events;
    this.envelopes = ports.envelopes;
  }

  /**
   * The turn if `viewer` may see it (admins and service accounts: any turn of the tenant; users:
   * the turns they started). @throws DomainError 404 `turn_not_found` when absent or not the caller's.
   */
  async visibleTurn(tenantId: string, viewer: Viewer, turnId: string): Promise<TurnRecord> {
    const t = await this.turns.get(tenantId, turnId);
    if (!t || (!seesWholeTenant(viewer) && t.principal_id !== viewer.id)) throw turnNotFound(turnId);
    return t;
  }

  /** State of a turn the viewer may see, pending or sealed (`GET /v1/turns/:turn_id`). @throws `turn_not_found`. */
  async view(tenantId: string, viewer: Viewer, turnId: string): Promise<TurnView> {
    const t = await this.visibleTurn(tenantId, viewer, turnId);
    const env = await this.envelopes.get(tenantId, t.turn_id);
    return {
      turn_id: t.turn_id, tenant_id: t.tenant_id, principal_id: t.principal_id, receipt: receiptOf(t),
      event_count: (await this.events.ofTurn(tenantId, t.turn_id)).length, envelope: env ? envelopeRecordOf(env) : null,
    };
  }

  /**
   * Ingest a batch under the pinned tenant. Invalid events are rejected one by one; the rest are
   * stored, and turns whose terminal event arrived are sealed, all in one transaction.
   * @throws DomainError 413 `payload_too_large` over `MAX_EVENTS_PER_BATCH` events.
   */
  async ingest(rawEvents: readonly unknown[], tenantId: string): Promise<IngestResult> {
    if (rawEvents.length > MAX_EVENTS_PER_BATCH) throw new DomainError('payload_too_large', `at most ${MAX_EVENTS_PER_BATCH} events per batch`);
    const result: IngestResult = { accepted: 0, duplicates: 0, rejected: [] };
    const valid: LeafEvent[] = [];
    for (const raw of rawEvents) {
      const n = normaliseEvent(raw, tenantId);
      if (n.ok) valid.push(n.event); else result.rejected.push({ event_id: n.event_id, reason: n.reason });
    }
    if (valid.length === 0) return result;
    return this.writer.run(tenantId, (tx) => this.ingestSteps(tx, tenantId, valid, result.rejected));
  }

  /** The writer job of `ingest`: store the new events, then seal the turns whose terminal event arrived. */
  private *ingestSteps(tx: JobTx, tenantId: string, valid: readonly LeafEvent[], rejected: IngestResult['rejected']): Steps<IngestResult> {
    // The validation's rejections first, then this job's (the same answer as one mutable result).
    const out: IngestResult = { accepted: 0, duplicates: 0, rejected: [...rejected] };
    const received = this.nowMs();
    const toSeal = new Set<string>();
    for (const e of valid) {
      if (yield* aw(this.events.exists(tenantId, e.turn_id, e.event_id))) { out.duplicates++; continue; }
      const turn = yield* aw(this.turns.get(tenantId, e.turn_id));
      if (turn && turn.status !== 'pending') { out.rejected.push({ event_id: e.event_id, reason: 'turn_sealed' }); continue; }
      if (!turn) yield* aw(this.turns.insert(tenantId, e.turn_id, nextUlid(), e.principal_id, received));
      yield* aw(this.events.insert({ ...e, received_ms: received }));
      out.accepted++;
      if (TERMINAL_TYPES.has(e.payload_type)) {
        yield* aw(this.turns.setTerminal(tenantId, e.turn_id, e.payload_type));
        toSeal.add(e.turn_id);
      }
    }
    for (const turnId of toSeal) yield* this.sealInTx(tx, tenantId, turnId, 'terminal_event');
    return out;
  }

  /** Seal each of `turnIds` (one tenant) that is still pending. @returns how many were sealed. */
  private *sealManySteps(tx: JobTx, tenantId: string, turnIds: readonly string[], reason: SealReason): Steps<number> {
    let n = 0;
    for (const turnId of turnIds) if (yield* this.sealInTx(tx, tenantId, turnId, reason)) n++;
    return n;
  }

  /**
   * Seal one pending turn inside a writer job (a `Steps` body: `yield* sealInTx(...)`). Status: the
   * first terminal event decides for `terminal_event`; otherwise `completed` when a `turn_sealed`
   * event is present, else `failed`.
   * @returns the payload, or null when the turn is unknown or already sealed.
   */
  *sealInTx(tx: JobTx, tenantId: string, turnId: string, reason: SealReason): Steps<EnvelopePayload | null> {
    const turn = yield* aw(this.turns.get(tenantId, turnId));
    if (!turn || turn.status !== 'pending') return null;
    const events = orderedEvents(yield* aw(this.events.ofTurn(tenantId, turnId)));
    const status = statusFor(turn, reason, events);
    const payload = buildEnvelopePayload(tenantId, turnId, status, reason, events);
    const ring = tx.keys();
    const signature = envelopeSignature(payload, ring.active.key, nodeHashProvider);
    const row = yield* aw(tx.append({
      tenant_id: tenantId, user_id: turn.principal_id, action: ANCHOR_ACTION, resource_type: ANCHOR_RESOURCE_TYPE, resource_id: turnId,
      detail_type: ENVELOPE_DETAIL_TYPE, detail: anchorDetailOf(payload, signature, nodeHashProvider) as unknown as Json,
    }, ring));
    yield* aw(this.envelopes.insert({
      tenant_id: tenantId, turn_id: turnId, payload: jcs(payload), signature, key_version: ring.active.version,
      audit_log_id: row.id, audit_seq: row.seq, audit_previous_hash: row.previous_hash, audit_signature: row.signature,
      audit_chain_hash: row.chain_hash, sealed_at: row.timestamp,
    }));
    yield* aw(this.turns.markSealed(tenantId, turnId, row.timestamp, row.seq));
    yield* aw(this.turns.setHistory(tenantId, turnId, historyOf(turn.principal_id, events, status)));
    return payload;
  }

  /** Seal one turn now (seal_reason `manual` by default). @returns whether it was sealed by this call. */
  async sealNow(tenantId: string, turnId: string, reason: SealReason = 'manual'): Promise<boolean> {
    return (await this.writer.run(tenantId, (tx) => this.sealManySteps(tx, tenantId, [turnId], reason))) === 1;
  }

  /**
   * Seal an open turn now with seal_reason `manual` (spec "Turn envelope"), e.g. a turn whose
   * emitter died before its terminal event.
   * @throws DomainError 404 `turn_not_found`, 409 `already_sealed`.
   */
  async sealManually(tenantId: string, turnId: string): Promise<{ turn_id: string; sealed: true; seal_reason: 'manual' }> {
    if (!await this.turns.get(tenantId, turnId)) throw turnNotFound(turnId);
    if (!await this.sealNow(tenantId, turnId, 'manual')) throw new DomainError('already_sealed', `turn ${turnId} is already sealed`);
    return { turn_id: turnId, sealed: true, seal_reason: 'manual' };
  }

  /**
   * One background pass: seal up to `limit` pending turns created more than `watermarkSeconds`
   * ago (seal_reason `watermark_timeout`), one writer job per tenant (in the order the store
   * listed them). @returns how many were sealed.
   */
  async sealStalled(watermarkSeconds: number, limit: number): Promise<number> {
    const stalled = await this.turns.stalled(this.nowMs() - watermarkSeconds * 1000, limit);
    if (stalled.length === 0) return 0;
    const byTenant = new Map<string, string[]>();
    for (const t of stalled) {
      const l = byTenant.get(t.tenant_id);
      if (l) l.push(t.turn_id); else byTenant.set(t.tenant_id, [t.turn_id]);
    }
    const counts = await Promise.all([...byTenant].map(([tenantId, turnIds]) => this.writer.run(tenantId, (tx) => this.sealManySteps(tx, tenantId, turnIds, 'watermark_timeout'))));
    return counts.reduce((a, b) => a + b, 0);
  }
}

function statusFor(turn: TurnRecord, reason: SealReason, events: readonly LeafEvent[]): EnvelopeStatus {
  if (reason === 'terminal_event' && turn.terminal) return turn.terminal === 'turn_failed' ? 'failed' : 'completed';
  return events.some((e) => e.payload_type === 'turn_sealed') ? 'completed' : 'failed';
}
