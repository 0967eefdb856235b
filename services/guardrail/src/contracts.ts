/**
 * Public surface of the guardrail service (DESIGN.md "Inside a service": `contracts.ts`, the one
 * door): its settings type, TypeBox request and response schemas with the types derived from them,
 * the constants callers need, and the error table. Imports nothing from Node or from non-contract
 * modules. The pure scanners in `domain/` may also be called in-process (`runCheck`, `findEntities`).
 *
 * Routes (spec "Guardrail"; all need a gateway-stamped principal):
 * - `POST /v1/guard/input`  body `GuardInputRequest`  -> 200 `GuardResult`
 * - `POST /v1/guard/output` body `GuardOutputRequest` -> 200 `GuardResult`
 * - `GET /v1/guard/policy?tenant_id&agent_id` -> 200 `PolicyView`
 * - `PUT /v1/guard/policy` (admin) body `PolicyPutRequest` -> 200 `PolicyView`
 * - `DELETE /v1/guard/policy?tenant_id&agent_id` (admin) -> 204
 * - `POST /v1/guard/deidentify` body `DeidentifyRequest` -> 200 `DeidentifyResponse` (needs X-Svc-Turn-Id)
 * - `POST /v1/guard/reidentify` body `ReidentifyRequest` -> 200 `ReidentifyResponse`
 * - `GET /v1/guard/status` -> 200 `GuardStatus` (which learned layers run; folders for admins only)
 * Errors: `{error, code}`; 400 `invalid_request` (with `field`), 400 `turn_missing`, 403 `tenant_mismatch`,
 * 403 `admin_required`.
 */
import { Type, type Static } from '../../shared/kit/typebox.js';
import { Nullable } from '../../shared/kit/schema.js';
import type { CommonServiceConfig } from '../../shared/config.js';
import type { ErrorTable } from '../../shared/kit/domain-error.js';

/** Settings read by main/config/services/guardrail.ts (defaults live there only). */
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
  /** Worker threads that run the scanners (SVC_GUARDRAIL_CHECK_WORKERS; issue 11 item 6). */
  checkWorkers: number;
  /** Time budget of one scan from arrival, ms; past it the check answers `block` (SVC_GUARDRAIL_CHECK_BUDGET_MS). */
  checkBudgetMs: number;
  /** Weights of the trained n-gram classifier, or null to run without it (SVC_GUARDRAIL_NGRAM_MODEL; issue 16 item 2). */
  ngramModelPath: string | null;
  /** Folders searched in order for the encoder classifier, as for the embedding model (SVC_MODELS_DIR, `<repo>/assets/models`, `<dataDir>/models`). */
  modelDirs: string[];
  /** Folder name of the encoder classifier in a models folder (SVC_GUARDRAIL_CLASSIFIER_MODEL; issue 16 item 1). */
  encoderModel: string;
  /** Longest wait for the encoder classifier's answer to one check, ms (SVC_GUARDRAIL_ENCODER_TIMEOUT_MS). */
  encoderTimeoutMs: number;
  /** Most windows of one text the encoder classifier reads (SVC_GUARDRAIL_ENCODER_MAX_WINDOWS). */
  encoderMaxWindows: number;
  /** onnxruntime intra-op threads of the encoder classifier (SVC_GUARDRAIL_ENCODER_THREADS). */
  encoderThreads: number;
}

/** The guardrail's config slice. */
export type GuardrailConfig = CommonServiceConfig & GuardrailSettings;

/** The guardrail's error codes beyond the common ones (`tenant_mismatch`, `admin_required`), and their statuses. */
export const GUARDRAIL_ERRORS = {
  /** De-identification without the X-Svc-Turn-Id of the turn. */
  turn_missing: 400,
  /** De-identification whose scan did not finish within SVC_GUARDRAIL_CHECK_BUDGET_MS (issue 11 item 6). */
  scan_incomplete: 422,
} as const satisfies ErrorTable;

/** Error codes the guardrail throws: its own and the common ones it uses. */
export type GuardrailErrorCode = keyof typeof GUARDRAIL_ERRORS | 'tenant_mismatch' | 'admin_required' | 'service_unavailable';


/** Largest content a check accepts, characters. */
export const MAX_CONTENT_CHARS = 1_000_000;

// ---- entities, sources, policy -----------------------------------------------------------------

/** Kinds of entity the guardrail recognises (Presidio's names; `SECRET` covers credentials). */
export const ENTITY_TYPES = [
  'PERSON', 'STREET_ADDRESS', 'EMAIL_ADDRESS', 'PHONE_NUMBER', 'CREDIT_CARD', 'IBAN_CODE', 'IP_ADDRESS',
  'US_SSN', 'US_ITIN', 'UK_NINO', 'CA_SIN', 'ES_NIF', 'IT_FISCAL_CODE', 'IN_PAN', 'SECRET',
] as const;
/** An entity type. */
export const EntityTypeSchema = Type.Enum(ENTITY_TYPES, { type: 'string' });
/** Kinds of entity the guardrail recognises. */
export type EntityType = Static<typeof EntityTypeSchema>;

/** Where scanned text came from: the user, a retrieved document, a tool result, or the model. */
export const CONTENT_SOURCES = ['user', 'document', 'tool', 'model'] as const;
/** Where scanned text came from. */
export type ContentSource = (typeof CONTENT_SOURCES)[number];

/** What a scanner that fires does: block the content, redact the spans, only flag, or not run. */
export const SCANNER_ACTIONS = ['block', 'redact', 'flag', 'off'] as const;
/** A scanner action. */
export const ScannerActionSchema = Type.Enum(SCANNER_ACTIONS, { type: 'string' });
/** A scanner action. */
export type ScannerAction = Static<typeof ScannerActionSchema>;

/** One scanner's settings; `threshold` is the risk (0..1) at which it fires. */
export const ScannerPolicySchema = Type.Object({ input: ScannerActionSchema, output: ScannerActionSchema, threshold: Type.Number() });
/** One scanner's settings. */
export type ScannerPolicy = Static<typeof ScannerPolicySchema>;

/** PII scanner settings: the entity types it and deidentify act on, and NLP recognisers in checks. */
const PiiPolicySchema = Type.Object({
  ...ScannerPolicySchema.properties,
  entities: Type.Array(EntityTypeSchema),
  nlp_in_checks: Type.Boolean(),
});

/**
 * Model judge through the router's `guardrail` role, when one is mapped (issue 16 item 3): asked
 * `always`, only when the other layers are `uncertain`, or `off`; `on_failure` says what a judge
 * that was asked and gave no verdict (timeout, error, answer outside the format) does: `open` = the
 * other layers decide, `closed` = block.
 */
const ClassifierPolicySchema = Type.Object({
  mode: Type.Enum(['off', 'uncertain', 'always'], { type: 'string' }),
  threshold: Type.Number(),
  on_failure: Type.Enum(['open', 'closed'], { type: 'string' }),
});

/** The effective policy (every field present): defaults <- tenant override <- agent override. */
export const GuardPolicySchema = Type.Object({
  prompt_injection: ScannerPolicySchema,
  harmful_content: ScannerPolicySchema,
  secrets: ScannerPolicySchema,
  system_prompt_leak: ScannerPolicySchema,
  pii: PiiPolicySchema,
  model_classifier: ClassifierPolicySchema,
  /** The project's trained n-gram classifier (issue 16 item 2); `threshold` is a probability. */
  ngram_classifier: ScannerPolicySchema,
  /** The imported encoder classifier, when its model is installed (issue 16 item 1); `threshold` is a probability. */
  encoder_classifier: ScannerPolicySchema,
});
/** The effective policy. */
export type GuardPolicy = Static<typeof GuardPolicySchema>;

/** A partial override as stored and as `PUT /v1/guard/policy` accepts it (validated by the domain). */
export const PolicyOverrideSchema = Type.Object({
  prompt_injection: Type.Optional(Type.Partial(ScannerPolicySchema)),
  harmful_content: Type.Optional(Type.Partial(ScannerPolicySchema)),
  secrets: Type.Optional(Type.Partial(ScannerPolicySchema)),
  system_prompt_leak: Type.Optional(Type.Partial(ScannerPolicySchema)),
  pii: Type.Optional(Type.Partial(PiiPolicySchema)),
  model_classifier: Type.Optional(Type.Partial(ClassifierPolicySchema)),
  ngram_classifier: Type.Optional(Type.Partial(ScannerPolicySchema)),
  encoder_classifier: Type.Optional(Type.Partial(ScannerPolicySchema)),
});
/** A partial policy override. */
export type PolicyOverride = Static<typeof PolicyOverrideSchema>;

// ---- checks ------------------------------------------------------------------------------------

/** Scope of a check (spec): the tenant, and the agent whose policy applies. */
export const GuardScopeSchema = Type.Object({
  tenant_id: Type.String({ minLength: 1, maxLength: 256 }),
  agent_id: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
});
/** Scope of a check. */
export type GuardScope = Static<typeof GuardScopeSchema>;

/** A user id a service caller names (audit attribution, mapping owner). */
const UserIdSchema = Type.String({ minLength: 1, maxLength: 256 });

/** `POST /v1/guard/input`. `source` marks retrieved documents and tool results (indirect injection rules). */
export const GuardInputRequestSchema = Type.Object({
  content: Type.String({ maxLength: MAX_CONTENT_CHARS }),
  scope: GuardScopeSchema,
  source: Type.Optional(Type.Enum(['user', 'document', 'tool'], { type: 'string' })),
  /** Service callers: the user the content belongs to (audit attribution). */
  user_id: Type.Optional(UserIdSchema),
});
/** `POST /v1/guard/input`. */
export type GuardInputRequest = Static<typeof GuardInputRequestSchema>;

/**
 * `POST /v1/guard/output`: the model's answer (or a tool result with `source: "tool"`). `input`: the
 * user's input of the turn (PII the user supplied is not a leak when echoed back); `system_prompt`:
 * to detect verbatim disclosure.
 */
export const GuardOutputRequestSchema = Type.Object({
  content: Type.String({ maxLength: MAX_CONTENT_CHARS }),
  scope: GuardScopeSchema,
  input: Type.Optional(Nullable(Type.String({ maxLength: MAX_CONTENT_CHARS }))),
  system_prompt: Type.Optional(Nullable(Type.String({ maxLength: MAX_CONTENT_CHARS }))),
  source: Type.Optional(Type.Enum(['model', 'document', 'tool'], { type: 'string' })),
  user_id: Type.Optional(UserIdSchema),
});
/** `POST /v1/guard/output`. */
export type GuardOutputRequest = Static<typeof GuardOutputRequestSchema>;

/** Decision of a check. `redact` is our addition to the spec's `allow` / `block`. */
export const GuardDecisionSchema = Type.Enum(['allow', 'block', 'redact'], { type: 'string' });
/** Decision of a check. */
export type GuardDecision = Static<typeof GuardDecisionSchema>;

/** One scanner's verdict (spec shape). `detail` names rules and entity kinds, never content. */
export const ScannerResultSchema = Type.Object({ scanner_name: Type.String(), is_safe: Type.Boolean(), risk_score: Type.Number(), detail: Type.String() });
/** One scanner's verdict. */
export type ScannerResult = Static<typeof ScannerResultSchema>;

/** The check result (spec "Guardrail input check result"). */
export const GuardResultSchema = Type.Object({
  decision: GuardDecisionSchema,
  reason: Type.String(),
  rewritten_content: Nullable(Type.String()),
  scanner_results: Type.Array(ScannerResultSchema),
});
/** The check result. */
export type GuardResult = Static<typeof GuardResultSchema>;

// ---- layer status (issue 16 items 1 and 2) -------------------------------------------------------

/** States of a learned layer: `unavailable` = no model installed, `off` = turned off by configuration. */
export const LAYER_STATES = ['loading', 'ready', 'unavailable', 'failed', 'off'] as const;

/** The trained n-gram classifier's status (`GET /v1/guard/status`, `/readyz`). */
export const NgramStatusSchema = Type.Object({
  state: Type.Enum(LAYER_STATES, { type: 'string' }),
  model: Nullable(Type.String()),
  version: Nullable(Type.String()),
  /** sha256 of the weights file. */
  sha256: Nullable(Type.String()),
  reason: Nullable(Type.String()),
});
/** The trained n-gram classifier's status. */
export type NgramStatus = Static<typeof NgramStatusSchema>;

/** The imported encoder classifier's status; `path` and folder names in `reason` for admins only. */
export const EncoderStatusSchema = Type.Object({
  state: Type.Enum(LAYER_STATES, { type: 'string' }),
  model: Type.String(),
  path: Nullable(Type.String()),
  file: Nullable(Type.String()),
  /** sha256 of the ONNX file as recorded at import (svc-model.json), or null. */
  sha256: Nullable(Type.String()),
  labels: Type.Array(Type.String()),
  reason: Nullable(Type.String()),
  texts_classified: Type.Integer(),
});
/** The imported encoder classifier's status. */
export type EncoderStatus = Static<typeof EncoderStatusSchema>;

/** `GET /v1/guard/status`: which learned layers run (other layers may add their own fields). */
export const GuardStatusSchema = Type.Object({
  ngram_classifier: NgramStatusSchema,
  encoder_classifier: EncoderStatusSchema,
}, { additionalProperties: true });
/** `GET /v1/guard/status`. */
export type GuardStatus = Static<typeof GuardStatusSchema>;

// ---- policy routes -----------------------------------------------------------------------------

const IdSchema = Type.String({ minLength: 1, maxLength: 256 });

/** Query of `GET` and `DELETE /v1/guard/policy`. */
export const PolicyQuerySchema = Type.Object({ tenant_id: Type.Optional(IdSchema), agent_id: Type.Optional(IdSchema) });
/** Query of `GET` and `DELETE /v1/guard/policy`. */
export type PolicyQuery = Static<typeof PolicyQuerySchema>;

/** `PUT /v1/guard/policy`: a partial override; `agent_id` absent sets the tenant level. */
export const PolicyPutRequestSchema = Type.Object({
  tenant_id: Type.Optional(IdSchema),
  agent_id: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
  /** Checked field by field by the domain (unknown sections and keys are refused). */
  policy: Type.Unsafe<unknown>({ type: 'object' }),
});
/** `PUT /v1/guard/policy`. */
export type PolicyPutRequest = Static<typeof PolicyPutRequestSchema>;

/** 204 of `DELETE /v1/guard/policy`: no body. */
export const NoContentSchema = Type.Null();

/** `GET/PUT /v1/guard/policy` answer: the effective policy and where its parts came from. */
export const PolicyViewSchema = Type.Object({
  tenant_id: Type.String(),
  agent_id: Nullable(Type.String()),
  policy: GuardPolicySchema,
  overrides: Type.Object({
    tenant: Type.Union([PolicyOverrideSchema, Type.Null()]),
    agent: Type.Union([PolicyOverrideSchema, Type.Null()]),
  }),
});
/** `GET/PUT /v1/guard/policy` answer. */
export type PolicyView = Static<typeof PolicyViewSchema>;

// ---- de-identification -------------------------------------------------------------------------

/** `POST /v1/guard/deidentify` (DESIGN.md). `entities` narrows the types (default: the policy's). */
export const DeidentifyRequestSchema = Type.Object({
  content: Type.String({ maxLength: MAX_CONTENT_CHARS }),
  scope: GuardScopeSchema,
  user_id: Type.Optional(UserIdSchema),
  entities: Type.Optional(Type.Array(EntityTypeSchema, { maxItems: 32 })),
});
/** `POST /v1/guard/deidentify`. */
export type DeidentifyRequest = Static<typeof DeidentifyRequestSchema>;

/** An entity in the deidentify answer: `[start, end)` offsets into the original content. */
export const DeidEntitySchema = Type.Object({ type: EntityTypeSchema, start: Type.Integer(), end: Type.Integer(), placeholder: Type.String() });
/** An entity in the deidentify answer. */
export type DeidEntity = Static<typeof DeidEntitySchema>;

/** Answer of deidentify: placeholders `<TYPE_N>`, stable per value within the turn. */
export const DeidentifyResponseSchema = Type.Object({ deidentified: Type.String(), entities: Type.Array(DeidEntitySchema) });
/** Answer of deidentify. */
export type DeidentifyResponse = Static<typeof DeidentifyResponseSchema>;

/** `POST /v1/guard/reidentify`: placeholders of `turn_id` (default: this request's turn) back to values. */
export const ReidentifyRequestSchema = Type.Object({
  content: Type.String({ maxLength: MAX_CONTENT_CHARS }),
  turn_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  user_id: Type.Optional(UserIdSchema),
});
/** `POST /v1/guard/reidentify`. */
export type ReidentifyRequest = Static<typeof ReidentifyRequestSchema>;

/** Answer of reidentify: only the owner's values are restored. */
export const ReidentifyResponseSchema = Type.Object({ content: Type.String(), replaced: Type.Integer() });
/** Answer of reidentify. */
export type ReidentifyResponse = Static<typeof ReidentifyResponseSchema>;
