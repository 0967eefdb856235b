/**
 * The audit service's error table (DESIGN.md "Errors"; issue 10 "Errors as data"): every code the
 * audit domain throws beyond the shared ones (`invalid_request`, `forbidden`, `admin_required`,
 * `payload_too_large`, `principal_missing`, ...), with its HTTP status. Bodies are `{error, code}`.
 */
import type { CommonErrorCode, ErrorTable } from '../../../shared/kit/domain-error.js';

/**
 * | code | status | when |
 * |---|---|---|
 * | `tenant_missing` | 400 | `POST /v1/audit` by a principal without tenant_id (spec "Errors") |
 * | `digest_mismatch` | 400 | an artifact's declared sha256 differs from its body |
 * | `service_account_required` | 403 | ingestion routes called by a non-service principal |
 * | `turn_not_found` | 404 | the audit service never saw the turn, or the caller may not see it |
 * | `receipt_not_sealed` | 404 | receipt detail, proof, bundle or verify before the seal |
 * | `artifact_not_found` | 404 | no such artifact (or its blob is missing) |
 * | `artifact_conflict` | 409 | same (turn, event, kind) with different bytes |
 * | `already_sealed` | 409 | manual seal of a turn that is sealed |
 * | `checkpoint_not_found` | 404 | no signed checkpoint yet, or none at that seq (issue 22 item 3) |
 */
export const AUDIT_ERRORS = {
  tenant_missing: 400,
  digest_mismatch: 400,
  service_account_required: 403,
  turn_not_found: 404,
  receipt_not_sealed: 404,
  artifact_not_found: 404,
  artifact_conflict: 409,
  already_sealed: 409,
  checkpoint_not_found: 404,
} as const satisfies ErrorTable;

/** A code of `AUDIT_ERRORS`, or a common one. */
export type AuditErrorCode = keyof typeof AUDIT_ERRORS | CommonErrorCode;
