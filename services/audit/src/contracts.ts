/**
 * The one door of the audit service (DESIGN.md "Inside a service": `contracts.ts`): TypeBox
 * request and response schemas of its routes with their types derived, the receipt format v1 wire
 * shapes, constants and the error table. Node-free: other services and the renderer import from
 * here (and call the service through `client.ts`).
 *
 * Routes (spec "Audit and receipts"; all need a gateway-stamped principal):
 * - `POST /v1/audit` body `AuditAppendRequest` -> 201 `AuditAppendResponse`; 400 `tenant_missing`
 * - `GET /v1/admin/audit?user_id&action&limit&offset` (admin) -> 200 `AuditRowPage`
 * - `GET /v1/admin/audit/verify?tenant_id&limit` (admin) -> 200 `ChainReport`; 400 without tenant_id
 * - `POST /v1/admin/audit/turns/:turn_id/seal` (admin) -> 200 `ManualSealResponse`; 404; 409 `already_sealed`
 * - `POST /v1/turns/events` (service-account) body `{events}` -> 200 `IngestResult`; 413 over 5000 events
 * - `GET /v1/turns/:turn_id` -> 200 `TurnView` (pending receipts too); `GET /v1/turns/:turn_id/proof` -> `ProofExport`
 * - `GET /v1/receipts?limit&cursor&kind&q&user_id` -> 200 `ReceiptPage` (history fields and filters: issue 13 item 7)
 * - `GET /v1/receipts/:turn_id` -> 200 `ReceiptDetail`; `/proof` -> `ProofExport`; `/bundle` -> `ReceiptBundle`; 404 until sealed
 * - `POST /v1/receipts/:turn_id/verify` -> 200 `ReceiptVerifyResponse`; 404 until sealed
 * - `GET /v1/receipts/keys` (public) -> 200 `ReceiptKeySet`; `GET /v1/receipts/checkpoints/latest` and
 *   `/checkpoints/:seq` (public) -> 200 text/plain signed-note checkpoint, 404 `checkpoint_not_found` (issue 22)
 * - `POST /v1/audit/artifacts` (service-account) body `ArtifactUploadRequest` -> 201/200 `ArtifactInfo`
 * - `GET /v1/audit/turns/:turn_id/replay` -> 200 `ReplayResponse`
 * - `GET /v1/audit/turns/:turn_id/artifacts/:event_id/:kind` -> 200 body stream
 */
export * from './contracts/common.js';
export * from './contracts/egress.js';
export * from './contracts/errors.js';
export * from './contracts/receipt-format.js';
export * from './contracts/audit-log.js';
export * from './contracts/turns.js';
export * from './contracts/receipts.js';
export * from './contracts/artifacts.js';
export * from './contracts/receipt-keys.js';
export type * from './contracts/runtime.js';

/** Largest JSON body of ordinary routes, bytes (event batches). */
export const AUDIT_BODY_LIMIT = 16 * 1024 * 1024;
