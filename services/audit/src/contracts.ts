/**
 * Public surface of the audit service (DESIGN.md "Inside a service": `contracts.ts`): request and
 * response shapes of its routes, its error codes, and the wire types of receipt format v1
 * (re-exported from the pure verifier). Other services and the renderer import types from here only.
 *
 * Routes (spec "Audit and receipts"; all need a gateway-stamped principal):
 * - `POST /v1/audit` body `AuditAppendRequest` -> 201 `AuditAppendResponse`; 400 principal without tenant_id
 * - `GET /v1/admin/audit?user_id&action&limit&offset` (admin) -> 200 `{items: AuditRowView[], next_cursor?}`
 * - `GET /v1/admin/audit/verify?tenant_id&limit` (admin) -> 200 `ChainReport`; 400 without tenant_id
 * - `POST /v1/turns/events` (service-account) body `{events}` -> 200 `IngestResult`; 413 over 1000 events
 * - `GET /v1/receipts?limit&cursor` -> 200 `{items: ReceiptListItem[], next_cursor?}`
 * - `GET /v1/receipts/:turn_id` -> 200 `ReceiptDetail`; `/proof` -> `ProofExport`; `/bundle` -> `ReceiptBundle`; 404 until sealed
 * - `POST /v1/receipts/:turn_id/verify` -> 200 `ReceiptVerifyResponse`; 404 until sealed
 * - `GET /v1/turns/:turn_id` -> 200 `TurnView` (pending receipts too); `GET /v1/turns/:turn_id/proof` -> `ProofExport`
 * - `POST /v1/audit/artifacts` (service-account) body `ArtifactUploadRequest` -> 201/200 `ArtifactInfo`
 * - `GET /v1/audit/turns/:turn_id/replay` -> 200 `ReplayResponse`
 * - `GET /v1/audit/turns/:turn_id/artifacts/:event_id/:kind` -> 200 body stream
 */
import type { ServiceRuntime } from '../../shared/runtime.js';
import type { KeyProvider } from './domain/keys.js';
import type { Json } from './verifier/format.js';
import type { EnvelopeRecord, ReceiptObject, VerificationReport, CheckId } from './verifier/types.js';

export type {
  ReceiptObject, ReceiptStatus, EnvelopeRecord, SuffixRow, ProofExport, ReceiptDetail, ReceiptBundle, VerificationReport, CheckResult, CheckId,
  VerificationErrorCode,
} from './verifier/types.js';
export type { EnvelopePayload, LeafEvent, AnchorDetail, EnvelopeStatus, SealReason, Json } from './verifier/format.js';
export type { ChainReport, ChainFailure, ChainCheck } from './domain/chain-verify.js';
export type { IngestResult, RejectReason } from './domain/turns.js';
export type { ReceiptListItem } from './domain/receipts.js';
export type { ArtifactInfo, ReplayEvent } from './domain/artifacts.js';
export type { KeyRing, KeyProvider } from './domain/keys.js';

/** Error codes of the audit service beyond the shared ones. */
export type AuditErrorCode =
  | 'tenant_missing'      // 400: the principal lacks tenant_id (spec "Errors")
  | 'receipt_not_sealed'  // 404: detail or proof before the seal
  | 'turn_not_found'      // 404: the audit service never saw the turn
  | 'artifact_not_found'  // 404
  | 'artifact_conflict'   // 409: same (turn, event, kind) with different bytes
  | 'digest_mismatch'     // 400: declared sha256 differs from the body
  | 'service_account_required'; // 403: ingestion routes

/** Body of `POST /v1/audit` (spec). `tenant_id` is ignored: rows go to the pinned tenant. */
export interface AuditAppendRequest {
  tenant_id?: string;
  /** Honoured from service accounts; other callers are recorded as themselves. */
  user_id?: string | null;
  action: string;
  resource_type?: string | null;
  resource_id?: string | null;
  detail_type?: string | null;
  detail?: Record<string, Json>;
  /** Folded into detail as `detail.result` (the signed payload has no `result` field). */
  result?: Json;
  agent_id?: string | null;
  agent_chain?: Json[] | null;
  delegated_by?: string | null;
}

/** 201 body of `POST /v1/audit`. */
export interface AuditAppendResponse {
  id: number;
  seq: number;
  tenant_id: string;
  timestamp: string;
  key_version: string;
  signature: string;
  previous_hash: string;
  chain_hash: string;
}

/** One row of `GET /v1/admin/audit` (detail and agent_chain parsed). */
export interface AuditRowView {
  id: number;
  seq: number;
  timestamp: string;
  tenant_id: string;
  user_id: string | null;
  action: string;
  resource_type: string | null;
  resource_id: string | null;
  detail_type: string | null;
  detail: Json;
  previous_hash: string;
  signed_payload: string;
  signature: string;
  key_version: string;
  chain_hash: string;
  agent_id: string | null;
  agent_chain: Json;
  delegated_by: string | null;
}

/** 200 body of `POST /v1/receipts/:turn_id/verify`. */
export interface ReceiptVerifyResponse {
  ok: boolean;
  checks: Array<{ id: CheckId; title: string; ok: boolean; detail: string }>;
  receipt: ReceiptObject;
  verified_at: string | null;
  verified_by: string | null;
}

/** 200 body of `GET /v1/turns/:turn_id`: state of any known turn, pending or sealed. */
export interface TurnView {
  turn_id: string;
  tenant_id: string;
  principal_id: string;
  receipt: ReceiptObject;
  event_count: number;
  envelope: EnvelopeRecord | null;
}

/** Body of `POST /v1/audit/artifacts`: exactly one of `content` (UTF-8 text) or `content_base64`. */
export interface ArtifactUploadRequest {
  turn_id: string;
  event_id: string;
  kind: string;
  content_type?: string;
  content?: string;
  content_base64?: string;
  /** When given, must equal the sha256 of the body. */
  sha256?: string;
}

/** 200 body of `GET /v1/audit/turns/:turn_id/replay`. */
export interface ReplayResponse {
  turn_id: string;
  tenant_id: string;
  receipt: ReceiptObject;
  events: import('./domain/artifacts.js').ReplayEvent[];
}

/** Host hooks the audit service accepts beyond the common runtime. */
export interface AuditRuntime extends ServiceRuntime {
  /**
   * Key ring in force, called at every insert, seal and verification run: a host that rotates
   * AUDIT_SIGNING_KEY supplies this to rotate without a restart. Default: the config's keys.
   */
  auditKeys?: KeyProvider;
}

/** Outcome type re-exported for route docs. */
export type { VerificationReport as ReceiptVerificationReport };
