/**
 * JSON Schema of one turn event and of the turn-event stream's messages (issue 20 item 3: turn events
 * go to audit over a gRPC stream carrying the batches the outbox POSTs to `/v1/turns/events`). The
 * codec (services/shared/grpc/schema-codec.ts) turns them into the `svc.v1.Audit/PublishTurnEvents`
 * messages of proto/svc/v1/audit.proto. Node-free.
 */
import type { SchemaNode } from '../grpc/schema-codec.js';

const str: SchemaNode = { type: 'string' };

/** A turn event (turn-events.ts `TurnEvent`). */
export const TURN_EVENT_SCHEMA: SchemaNode = {
  type: 'object',
  properties: {
    turn_id: str, event_id: str, tenant_id: str, principal_id: str, emitter_service: str,
    emitter_instance: { type: ['string', 'null'] }, occurred_at: str, sequence_in_service: { type: 'integer' },
    payload_type: str, payload_json: str,
  },
  required: ['turn_id', 'event_id', 'tenant_id', 'principal_id', 'emitter_service', 'emitter_instance', 'occurred_at', 'sequence_in_service', 'payload_type', 'payload_json'],
};

/** One batch on the stream: `batch_seq` numbers batches within the stream, `events` as `POST /v1/turns/events`'s body. */
export const TURN_EVENT_BATCH_SCHEMA: SchemaNode = {
  type: 'object',
  properties: { batch_seq: { type: 'integer' }, events: { type: 'array', items: TURN_EVENT_SCHEMA } },
  required: ['batch_seq', 'events'],
};

/**
 * The answer to one batch: `http_status` is what `POST /v1/turns/events` would answer; `result`
 * its 200 body (`{accepted, duplicates, rejected}`), else `error_body` its JSON error body.
 */
export const TURN_EVENT_ANSWER_SCHEMA = (ingestResult: SchemaNode): SchemaNode => ({
  type: 'object',
  properties: { batch_seq: { type: 'integer' }, http_status: { type: 'integer' }, result: ingestResult, error_body: { type: ['string', 'null'] } },
  required: ['batch_seq', 'http_status'],
});

/** The 200 body of `POST /v1/turns/events` (audit's `IngestResultSchema`, mirrored here so publishers need not import audit). */
export const INGEST_RESULT_SCHEMA: SchemaNode = {
  type: 'object',
  properties: {
    accepted: { type: 'integer' }, duplicates: { type: 'integer' },
    rejected: { type: 'array', items: { type: 'object', properties: { event_id: { type: ['string', 'null'] }, reason: { type: 'string' } }, required: ['event_id', 'reason'] } },
  },
  required: ['accepted', 'duplicates', 'rejected'],
};
