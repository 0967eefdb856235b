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
import { MCP_ERRORS } from './mcp.js';
import { OAUTH_ERRORS } from './oauth.js';
import { WEBHOOK_ERRORS } from './webhooks.js';
import { CONNECTOR_ERRORS } from './connectors.js';

/** Code -> HTTP status. */
export const AGENT_RUNTIME_ERRORS = {
  /** MCP servers (issue 17 item 3; contracts/mcp.ts). */
  ...MCP_ERRORS,
  /** OAuth providers and per-user integrations (issue 18 item 1; contracts/oauth.ts). */
  ...OAUTH_ERRORS,
  /** Signed webhooks (issue 18 item 2; contracts/webhooks.ts). */
  ...WEBHOOK_ERRORS,
  /** Knowledge connectors (issue 18 item 3; contracts/connectors.ts). */
  ...CONNECTOR_ERRORS,
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
  /** Durable conversations (issue 13 item 4): the feature is off (AGENT_RUNTIME_CONVERSATIONS_ENABLED), or the caller has no such conversation / item / run. */
  conversations_disabled: 404,
  conversation_not_found: 404,
  conversation_item_not_found: 404,
  conversation_run_not_found: 404,
  /** A run is in progress on the conversation (one at a time). */
  conversation_busy: 409,
  /** Cancel of a run that already completed or failed. */
  conversation_run_finished: 409,
  /** A notification that is absent or another user's (issue 13 item 1). */
  notification_not_found: 404,
  /** `POST /v1/internal/notifications` by a principal that is not a service. */
  service_account_required: 403,
  /** `POST /v1/internal/notifications` by a service outside NOTIFICATIONS_PRODUCERS. */
  producer_not_allowed: 403,
  /** A notification payload nested deeper than 8 levels (spec "Limits"). */
  payload_too_deep: 400,
  /** A permission profile that does not exist in the tenant (issue 13 item 8). */
  permission_profile_not_found: 404,
  /** A chat names an agent the caller's permission profiles do not open (issue 13 item 8). */
  agent_not_allowed: 403,
  /** A permission profile name already used in the tenant. */
  permission_profile_name_taken: 409,
  /** No pending profile draft to accept or dismiss (issue 13 item 2). */
  profile_draft_not_found: 404,
  /** The `id` of an accept or dismiss is not the pending draft (a newer proposal replaced it). */
  profile_draft_changed: 409,
  /** A user or tenant secret that does not exist (issue 13 item 3). */
  secret_not_found: 404,
  /** The secrets data key cannot be opened (SVC_SECRET_STORE=keychain with no keychain, a malformed key) or a stored value does not open. */
  secret_store_unavailable: 503,
  /** A context record that does not exist, or another user's turn for a caller without the admin role (issue 13 item 5). */
  context_not_found: 404,
  /** An agent that does not exist, or another user's personal agent (issue 17 item 1): to read, edit or use in a chat. */
  agent_not_found: 404,
  /** A skill that does not exist, or another user's personal skill (issue 17 item 2). */
  skill_not_found: 404,
  /** A skill name already used in the same scope (per owner for personal skills). */
  skill_name_taken: 409,
} as const satisfies ErrorTable;

/** A code of `AGENT_RUNTIME_ERRORS`, or a common one. */
export type AgentRuntimeErrorCode = keyof typeof AGENT_RUNTIME_ERRORS | CommonErrorCode;

/** Codes of a failed model call (spec "Errors"). */
export type InferenceErrorCode =
  | 'provider_key_missing' | 'role_not_configured' | 'role_no_backend' | 'model_unknown' | 'backend_unavailable' | 'budget_exceeded' | 'inference_error';
