/**
 * Public surface of the inference router, the one door other services and the renderer import
 * (spec "Inference router", "Other resources", "Errors": inference codes; DESIGN.md "Request bodies
 * the spec leaves open"). Node-free: schemas, types derived from them, constants, the error table.
 *
 * Admin routes (reached as `/v1/admin/inference/{rest}` through the gateway, admin role):
 * - `GET /v1/internal/providers` -> 200 `ProviderList` (the local engine included)
 * - `POST /v1/internal/providers` body `ProviderInput` -> 201 `ProviderView` (normalised and probed);
 *   400 `invalid_request` (bad URL); 400 `url_not_allowed` (the URL reaches the workstation's own
 *   gateway or service ports, or a link-local or unspecified address: issue 11 item 8);
 *   409 `conflict` (name taken); 422 `provider_redirect`,
 *   `provider_unreachable`, `provider_key_missing`, `provider_auth_failed`, `provider_probe_failed`
 * - `GET /v1/internal/providers/{id}` -> 200 `ProviderView`; 404
 * - `PATCH|PUT /v1/internal/providers/{id}` body `ProviderPatch` (api_key null clears) -> 200;
 *   re-probed when base_url, adapter or key change; errors as POST; 409 for the local provider
 * - `DELETE /v1/internal/providers/{id}` -> 204 (its role targets go too); 404; 409 for `local`
 * - `GET /v1/internal/providers/{id}/models?refresh=true` -> 200 `{items: ModelView[]}`
 * - `GET /v1/internal/roles` -> 200 `{items: RoleView[]}` (all eight roles)
 * - `GET /v1/internal/roles/{role}` -> 200 `RoleView`; 400 for a role outside the eight
 * - `PUT /v1/internal/roles/{role}` body `RoleInput` -> 200 `RoleView`; 400 `invalid_request`
 *   (unknown provider), 400 `model_unknown` (model not offered by the provider)
 * - `DELETE /v1/internal/roles/{role}` -> 204
 * OpenAI-compatible routes (through the gateway, any authenticated principal):
 * - `GET /v1/models` -> 200 `ModelList` (concrete models, then configured roles)
 * - `GET /v1/routes` -> 200 `RouteList`
 * - `POST /v1/chat/completions` -> 200 chat.completion or `text/event-stream` of chat.completion.chunk
 * - `POST /v1/embeddings` -> 200 OpenAI embedding list
 * Errors: `{error, code}` with the codes of `INFERENCE_ROUTER_ERRORS`.
 */
import type { ErrorTable } from '../../shared/kit/domain-error.js';
import type { CommonServiceConfig } from '../../shared/config.js';

export * from './contracts/registry.js';
export * from './contracts/openai.js';
export * from './contracts/egress.js';

/**
 * The router's error codes and their HTTP statuses (DESIGN.md "Errors"; spec "Errors": inference
 * codes), beyond the common ones. Two codes answer in two situations, as the spec fixes them:
 * `provider_key_missing` is 422 when a provider is registered (`registration`) and 503 when a call
 * finds only providers without a key (`chat`: chat completions and embeddings); `model_unknown` is 400
 * when a role is mapped to a model the provider does not offer (`role_mapping`) and 404 when a call
 * names a model no provider offers (`chat`). `invalid_request` keeps the 413 a provider answers to an
 * oversized chat request (`upstream_payload_too_large`).
 *
 * | code | status | when |
 * |---|---|---|
 * | `role_not_configured` | 503 | a role alias with no targets |
 * | `role_no_backend` | 503 | a role whose targets are all gone |
 * | `backend_unavailable` | 503 | every candidate backend failed |
 * | `budget_exceeded` | 429 | the tenant's hard budget is spent (issue 4) |
 * | `provider_redirect` | 422 | the base URL redirects; the message names the Location |
 * | `provider_unreachable` | 422 | connection refused, DNS failure, timeout |
 * | `provider_auth_failed` | 422 | the provider refused the given api_key |
 * | `provider_probe_failed` | 422 | `/models` answered something other than an OpenAI model list |
 * | `url_not_allowed` | 400 | the base URL reaches the workstation's own gateway or service ports, or a link-local or unspecified address (issue 11 item 8) |
 */
export const INFERENCE_ROUTER_ERRORS = {
  provider_key_missing: { registration: 422, chat: 503 },
  model_unknown: { role_mapping: 400, chat: 404 },
  role_not_configured: 503,
  role_no_backend: 503,
  backend_unavailable: 503,
  budget_exceeded: 429,
  provider_redirect: 422,
  provider_unreachable: 422,
  provider_auth_failed: 422,
  provider_probe_failed: 422,
  url_not_allowed: 400,
  egress_destination_invalid: 400,
  egress_rule_not_found: 404,
  egress_rule_exists: 409,
  egress_unavailable: 503,
  invalid_request: { default: 400, upstream_payload_too_large: 413 },
} as const satisfies ErrorTable;

/** A code of the router's error table. */
export type InferenceRouterErrorCode = keyof typeof INFERENCE_ROUTER_ERRORS;

/** The spec's inference error codes, plus `budget_exceeded` (issue 4: a hard budget refuses). */
export type InferenceErrorCode = Extract<InferenceRouterErrorCode,
  'provider_key_missing' | 'role_not_configured' | 'role_no_backend' | 'model_unknown' | 'backend_unavailable' | 'budget_exceeded'>;

/** Error codes of provider registration (422, and 400 `url_not_allowed`). */
export type RegistrationErrorCode = Extract<InferenceRouterErrorCode,
  'provider_redirect' | 'provider_unreachable' | 'provider_key_missing' | 'provider_auth_failed' | 'provider_probe_failed' | 'url_not_allowed'>;

/**
 * The router's environment-derived settings; main/config/services/inference-router.ts reads them
 * (the only place with defaults).
 */
export interface InferenceRouterSettings {
  /** Models folder; GGUF files are read from `<modelsDir>/llm/*.gguf` (SVC_MODELS_DIR). */
  modelsDir: string;
  /** Serve local GGUF files (SVC_LOCAL_LLM_ENABLED, default true). */
  localEngineEnabled: boolean;
  /** CPU threads of the local engine (SVC_LOCAL_LLM_THREADS, default 2). */
  localThreads: number;
  /** Context size of the local engine, tokens (SVC_LOCAL_LLM_CONTEXT, default 512). */
  localContextSize: number;
  /** Default max_tokens of local generations (SVC_LOCAL_LLM_MAX_TOKENS, default 256). */
  localMaxTokens: number;
  /** Registry snapshot refresh, seconds (SVC_ROUTER_SNAPSHOT_REFRESH_SECONDS, spec "Limits": 30). */
  snapshotRefreshSeconds: number;
  /** Cooldown of a failing backend, seconds (SVC_ROUTER_COOLDOWN_SECONDS, default 30). */
  cooldownSeconds: number;
  /** Timeout of the registration probe, ms (SVC_ROUTER_PROBE_TIMEOUT_MS, default 5000). */
  probeTimeoutMs: number;
  /** Time to response headers from a provider before failing over, ms (SVC_ROUTER_UPSTREAM_TIMEOUT_MS, default 120000). */
  upstreamTimeoutMs: number;
  /** How long a budget answer is reused, ms (SVC_ROUTER_BUDGET_CACHE_MS, default 5000; 0 = ask every time). */
  budgetCacheMs: number;
  /**
   * Where provider API keys live (SVC_SECRET_STORE, default `auto`): `auto` (OS keychain when one
   * answers, else the encrypted file), `keychain` (refuse to start without one), `file` (always the
   * encrypted file).
   */
  secretStore: 'auto' | 'keychain' | 'file';
}

/** The router's config: the common slice plus its settings. */
export type RouterConfig = CommonServiceConfig & InferenceRouterSettings & { service: 'inference-router' };
