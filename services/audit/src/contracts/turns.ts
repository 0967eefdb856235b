/**
 * Turn route shapes (spec "Turn event", "Events"; "Audit and receipts": direct audit-service
 * routes): `POST /v1/turns/events`, `GET /v1/turns/:turn_id`, `GET /v1/turns/:turn_id/proof`.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { Nullable, StringEnum } from './common.js';
import { EnvelopeRecordSchema, ReceiptObjectSchema } from './receipt-format.js';

/** Most events accepted in one batch of `POST /v1/turns/events` (413 above). */
export const MAX_EVENTS_PER_BATCH = 5000;

/** Payload types the spec names (plus the contract-only cap token events). */
export const PAYLOAD_TYPES = [
  'turn_started', 'turn_sealed', 'turn_failed', 'prompt_generated', 'tool_called', 'tool_returned', 'model_invoked',
  'model_response', 'guardrail_verdict', 'memory_op', 'rag_chunks_retrieved', 'cap_token_issued', 'cap_token_rejected',
] as const;

/** Terminal payload types (spec "Events"). */
export const TERMINAL_PAYLOAD_TYPES = ['turn_sealed', 'turn_failed'] as const;

/** Largest payload_json accepted, characters (bodies belong in artifacts). */
export const MAX_PAYLOAD_JSON = 256 * 1024;

/**
 * Body of `POST /v1/turns/events`: `{events}`. Each event is checked one by one by the domain
 * (spec "Turn event" fields), so the array's items are open here.
 */
export const TurnEventBatchSchema = Type.Object({ events: Type.Unsafe<unknown[]>({ type: 'array' }) });
/** Body of `POST /v1/turns/events`. */
export type TurnEventBatch = Static<typeof TurnEventBatchSchema>;

/** Per-event rejection reasons of `POST /v1/turns/events`. */
export const RejectReasonSchema = StringEnum([
  'turn_sealed', 'invalid_event', 'invalid_turn_id', 'invalid_event_id', 'invalid_occurred_at',
  'invalid_payload_type', 'invalid_payload_json', 'invalid_sequence',
] as const);
/** A per-event rejection reason. */
export type RejectReason = Static<typeof RejectReasonSchema>;

/** 200 body of `POST /v1/turns/events` (the body the turn-event client expects). */
export const IngestResultSchema = Type.Object({
  accepted: Type.Integer(),
  duplicates: Type.Integer(),
  rejected: Type.Array(Type.Object({ event_id: Nullable(Type.String()), reason: RejectReasonSchema })),
});
/** Result of an ingestion batch. */
export type IngestResult = Static<typeof IngestResultSchema>;

/** 200 body of `GET /v1/turns/:turn_id`: state of any known turn, pending or sealed. */
export const TurnViewSchema = Type.Object({
  turn_id: Type.String(),
  tenant_id: Type.String(),
  principal_id: Type.String(),
  receipt: ReceiptObjectSchema,
  event_count: Type.Integer(),
  /** The envelope once sealed, else null. */
  envelope: Nullable(EnvelopeRecordSchema),
});
/** State of a turn. */
export type TurnView = Static<typeof TurnViewSchema>;
