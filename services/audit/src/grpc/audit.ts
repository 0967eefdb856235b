/**
 * Audit's gRPC adapter (issue 20 items 2 and 3; spec "Transport split": /v1/audit append over
 * gRPC; "Turn events (gRPC publish to audit)"):
 * - `svc.v1.Audit/Append` calls the same `AuditLogService.append` as `POST /v1/audit` (201);
 * - `svc.v1.Audit/PublishTurnEvents` is a bidirectional stream: each `TurnEventBatch` is what the
 *   outbox POSTs to `/v1/turns/events` and gets, in order, a `TurnEventAnswer` with what that route
 *   answers (200 `{accepted, duplicates, rejected}`; 413 over 5000 events; 403 for a caller that is
 *   not a service account, checked at the stream's open). Ingestion is the same `TurnService.ingest`,
 *   so re-delivered events are duplicates, as over HTTP.
 */
import type { GrpcBinding } from '../../../shared/grpc/server.js';
import { fromMessage, toMessage, type SchemaNode } from '../../../shared/grpc/schema-codec.js';
import { TURN_EVENT_ANSWER_SCHEMA, TURN_EVENT_BATCH_SCHEMA } from '../../../shared/events/turn-event-schema.js';
import { toErrorResponse } from '../../../shared/kit/errors.js';
import { AuditAppendRequestSchema, AuditAppendResponseSchema, AUDIT_ERRORS, IngestResultSchema, type AuditAppendRequest } from '../contracts.js';
import { requireServiceAccount } from '../domain/access.js';
import type { AuditLogService } from '../domain/audit-log.js';
import type { TurnService } from '../domain/turns.js';

const S = (x: unknown): SchemaNode => x as SchemaNode;
const ANSWER = TURN_EVENT_ANSWER_SCHEMA(S(IngestResultSchema));

/** The `Audit` service over the audit log and the turn service. */
export function auditGrpc(o: { tenantId: string; auditLog: AuditLogService; turns: TurnService }): GrpcBinding {
  return {
    service: 'Audit',
    unary: [{
      name: 'Append', method: 'POST', url: '/v1/audit', body: S(AuditAppendRequestSchema), response: S(AuditAppendResponseSchema),
      run: async (c, req) => ({ status: 201, body: await o.auditLog.append(c.principal, req.body as AuditAppendRequest) }),
    }],
    bidi: {
      PublishTurnEvents: (call, caller) => {
        let refused: { status: number; body: string } | null = null;
        try { requireServiceAccount(caller.principal); } catch (err) {
          const res = toErrorResponse(err, AUDIT_ERRORS);
          refused = { status: res.status, body: JSON.stringify(res.body) };
        }
        // One answer per batch, in the order the batches came.
        let chain: Promise<void> = Promise.resolve();
        const answer = async (batch: { batch_seq: number; events: unknown[] }): Promise<Record<string, unknown>> => {
          if (refused) return { batch_seq: batch.batch_seq, http_status: refused.status, error_body: refused.body };
          try {
            return { batch_seq: batch.batch_seq, http_status: 200, result: await o.turns.ingest(batch.events, o.tenantId) };
          } catch (err) {
            const res = toErrorResponse(err, AUDIT_ERRORS);
            return { batch_seq: batch.batch_seq, http_status: res.status, error_body: JSON.stringify(res.body) };
          }
        };
        call.on('data', (msg: Record<string, unknown>) => {
          const batch = fromMessage(TURN_EVENT_BATCH_SCHEMA, msg) as { batch_seq: number; events: unknown[] };
          chain = chain.then(async () => { const a = await answer(batch); if (!call.cancelled) call.write(toMessage(ANSWER, a)); });
        });
        call.on('end', () => { void chain.then(() => call.end()); });
        call.on('error', () => undefined);
      },
    },
  };
}
