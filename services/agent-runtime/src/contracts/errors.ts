/**
 * The runtime's error codes and their HTTP statuses (DESIGN.md "Errors"; spec "Errors"), beside the
 * shared ones (`invalid_request`, `not_found`, `admin_required`, `service_unavailable`, ...). Every
 * error body is `{error, code}`.
 *
 * Inference codes (spec "Errors": the router's own code when it gave one, otherwise derived from
 * the error text; domain/inference-errors.ts) answer `POST /v1/chat` and
 * `POST /v1/sessions/{id}/title` with these statuses; the chat stream carries them in its `error`
 * event instead. `client_closed` (499) is what a JSON chat whose client went away ends with.
 */
import type { CommonErrorCode, ErrorTable } from '../../../shared/kit/domain-error.js';

/** Code -> HTTP status. */
export const AGENT_RUNTIME_ERRORS = {
  session_not_found: 404,
  folder_not_found: 404,
  message_not_found: 404,
  approval_not_found: 404,
  /** The approval was decided already (or expired / was cancelled). */
  approval_decided: 409,
  /** Live replay of a turn that is unknown or not the caller's. */
  turn_not_found: 404,
  /** Live replay of a turn with no captured prompt. */
  replay_unavailable: 409,
  /** A chat file part names a knowledge document that does not exist or the user may not read (issue 12 item 7). */
  document_not_found: 404,
  /** The guardrail cannot be reached (connection refused) and AGENT_RUNTIME_GUARDRAIL_FAIL_MODE is `closed` (the default). */
  guardrail_unavailable: 503,
  provider_key_missing: 503,
  role_not_configured: 503,
  role_no_backend: 503,
  model_unknown: 400,
  backend_unavailable: 503,
  budget_exceeded: 429,
  inference_error: 503,
  client_closed: 499,
} as const satisfies ErrorTable;

/** A code of `AGENT_RUNTIME_ERRORS`, or a common one. */
export type AgentRuntimeErrorCode = keyof typeof AGENT_RUNTIME_ERRORS | CommonErrorCode;

/** Codes of a failed model call (spec "Errors"). */
export type InferenceErrorCode =
  | 'provider_key_missing' | 'role_not_configured' | 'role_no_backend' | 'model_unknown' | 'backend_unavailable' | 'budget_exceeded' | 'inference_error';
