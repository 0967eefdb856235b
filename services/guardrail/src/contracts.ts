/**
 * Public surface of the guardrail service (DESIGN.md "Inside a service": `contracts.ts`): its config
 * slice, request and response shapes, and error codes. Other services import types from here only;
 * the pure scanners in `domain/` may also be called in-process (`runCheck`, `findEntities`).
 *
 * Routes (spec "Guardrail"; all need a gateway-stamped principal):
 * - `POST /v1/guard/input`  body `GuardInputRequest`  -> 200 `GuardResult`
 * - `POST /v1/guard/output` body `GuardOutputRequest` -> 200 `GuardResult`
 * - `GET /v1/guard/policy?tenant_id&agent_id` -> 200 `PolicyView`
 * - `PUT /v1/guard/policy` (admin) body `PolicyPutRequest` -> 200 `PolicyView`
 * - `DELETE /v1/guard/policy?tenant_id&agent_id` (admin) -> 204
 * - `POST /v1/guard/deidentify` body `DeidentifyRequest` -> 200 `DeidentifyResponse` (needs X-Svc-Turn-Id)
 * - `POST /v1/guard/reidentify` body `ReidentifyRequest` -> 200 `ReidentifyResponse`
 * Errors: `{error, code}`; 400 `invalid_request` (with `field`), 400 `turn_missing`, 403 `tenant_mismatch`,
 * 403 `admin_required`.
 */
import type { CommonServiceConfig } from '../../shared/config.js';
import type { DeidEntity } from './domain/deidentify.js';
import type { EntityType } from './domain/entities.js';
import type { ContentSource } from './domain/injection.js';
import type { GuardPolicy, PolicyOverride } from './domain/policy.js';

export type { GuardResult, GuardDecision, ScannerResult, GuardVerdict } from './domain/check.js';
export type { GuardPolicy, PolicyOverride, ScannerAction, ScannerPolicy } from './domain/policy.js';
export type { EntityType } from './domain/entities.js';
export type { ContentSource } from './domain/injection.js';
export type { DeidEntity } from './domain/deidentify.js';

/** Settings read by main/config/services/guardrail.ts. */
export interface GuardrailSettings {
  /** Per-call timeout of the router classifier, ms (SVC_GUARDRAIL_CLASSIFIER_TIMEOUT_MS). */
  classifierTimeoutMs: number;
  /** How long a missing `guardrail` role is remembered before asking again, s (SVC_GUARDRAIL_CLASSIFIER_RETRY_SECONDS). */
  classifierRetrySeconds: number;
  /** De-identification mappings are deleted after this many hours (SVC_GUARDRAIL_DEID_RETENTION_HOURS). */
  deidRetentionHours: number;
  /** Largest request body, bytes (SVC_GUARDRAIL_MAX_BODY_BYTES). */
  maxBodyBytes: number;
  /** How long a check waits for its turn event and audit row to land, ms (SVC_GUARDRAIL_DELIVERY_TIMEOUT_MS). */
  deliveryTimeoutMs: number;
}

/** The guardrail's config slice. */
export type GuardrailConfig = CommonServiceConfig & GuardrailSettings;

/** Defaults of the settings (also used when a test hands a bare common config). */
export const DEFAULT_GUARDRAIL_SETTINGS: GuardrailSettings = {
  classifierTimeoutMs: 3000, classifierRetrySeconds: 30, deidRetentionHours: 168, maxBodyBytes: 2 * 1024 * 1024, deliveryTimeoutMs: 1500,
};

/** Error codes of the guardrail beyond the shared ones. */
export type GuardrailErrorCode = 'tenant_mismatch' | 'turn_missing' | 'admin_required';

/** Scope of a check (spec): the tenant, and the agent whose policy applies. */
export interface GuardScope { tenant_id: string; agent_id?: string | null }

/** `POST /v1/guard/input`. `source` marks retrieved documents and tool results (indirect injection rules). */
export interface GuardInputRequest {
  content: string;
  scope: GuardScope;
  source?: Exclude<ContentSource, 'model'>;
  /** Service callers: the user the content belongs to (audit attribution). */
  user_id?: string;
}

/** `POST /v1/guard/output`: the model's answer (or a tool result with `source: "tool"`). */
export interface GuardOutputRequest {
  content: string;
  scope: GuardScope;
  /** The user's input of the turn: PII the user supplied is not a leak when echoed back. */
  input?: string | null;
  /** The system prompt, to detect verbatim disclosure. */
  system_prompt?: string | null;
  source?: ContentSource;
  user_id?: string;
}

/** `GET/PUT /v1/guard/policy` answer: the effective policy and where its parts came from. */
export interface PolicyView {
  tenant_id: string;
  agent_id: string | null;
  policy: GuardPolicy;
  overrides: { tenant: PolicyOverride | null; agent: PolicyOverride | null };
}

/** `PUT /v1/guard/policy`: a partial override; `agent_id` absent sets the tenant level. */
export interface PolicyPutRequest { tenant_id: string; agent_id?: string | null; policy: PolicyOverride }

/** `POST /v1/guard/deidentify` (DESIGN.md). `entities` narrows the types (default: the policy's). */
export interface DeidentifyRequest { content: string; scope: GuardScope; entities?: EntityType[]; user_id?: string }

/** Answer of deidentify: offsets refer to the original content. */
export interface DeidentifyResponse { deidentified: string; entities: DeidEntity[] }

/** `POST /v1/guard/reidentify`: placeholders of `turn_id` (default: this request's turn) back to values. */
export interface ReidentifyRequest { content: string; turn_id?: string; user_id?: string }

/** Answer of reidentify. */
export interface ReidentifyResponse { content: string; replaced: number }
