/**
 * Public surface of the inference router (spec "Inference router", "Other resources", "Errors":
 * inference codes; DESIGN.md "Request bodies the spec leaves open").
 *
 * Admin routes (reached as `/v1/admin/inference/{rest}` through the gateway, admin role):
 * - `GET /v1/internal/providers` -> 200 `{items: ProviderView[]}` (the local engine included)
 * - `POST /v1/internal/providers` body `ProviderInput` -> 201 `ProviderView` (normalised and probed);
 *   400 `invalid_request` (bad URL); 409 `conflict` (name taken); 422 `provider_redirect`,
 *   `provider_unreachable`, `provider_key_missing`, `provider_auth_failed`, `provider_probe_failed`
 * - `GET /v1/internal/providers/{id}` -> 200 `ProviderView`; 404
 * - `PATCH|PUT /v1/internal/providers/{id}` body `Partial<ProviderInput>` (api_key null clears) -> 200;
 *   re-probed when base_url, adapter or key change; errors as POST; 409 for the local provider
 * - `DELETE /v1/internal/providers/{id}` -> 204 (its role targets go too); 404; 409 for `local`
 * - `GET /v1/internal/providers/{id}/models?refresh=true` -> 200 `{items: ModelView[]}`
 * - `GET /v1/internal/roles` -> 200 `{items: RoleView[]}` (all eight roles)
 * - `GET /v1/internal/roles/{role}` -> 200 `RoleView`; 400 for a role outside the eight
 * - `PUT /v1/internal/roles/{role}` body `RoleInput` -> 200 `RoleView`; 400 `invalid_request`
 *   (unknown provider), 400 `model_unknown` (model not offered by the provider)
 * - `DELETE /v1/internal/roles/{role}` -> 204
 * OpenAI-compatible routes (through the gateway, any authenticated principal):
 * - `GET /v1/models` -> 200 `{object: "list", data: ModelView[]}` (concrete models, then configured roles)
 * - `GET /v1/routes` -> 200 `{items: RouteView[]}`
 * - `POST /v1/chat/completions` -> 200 chat.completion or `text/event-stream` of chat.completion.chunk
 * - `POST /v1/embeddings` -> 200 OpenAI embedding list
 * Inference errors: `{error, code}` with the codes of `InferenceErrorCode`.
 */
import type { CommonServiceConfig } from '../../shared/config.js';

/** Upstream API shape of a provider (spec "Other resources"). */
export type AdapterKind = 'chat_completions' | 'responses';

/** The canonical role aliases (spec "Other resources"). */
export const MODEL_ROLES = ['default', 'title', 'classifier', 'memory', 'profile_curation', 'vision', 'guardrail', 'knowledge'] as const;

/** One of the eight role aliases. */
export type ModelRole = (typeof MODEL_ROLES)[number];

/** Id and name of the embedded engine's provider (DESIGN.md: GGUF files are provider `local`). */
export const LOCAL_PROVIDER_ID = 'local';

/**
 * The spec's inference error codes, plus `budget_exceeded` (issue 4: a hard budget refuses).
 * Status: `model_unknown` 404; `role_not_configured`, `role_no_backend`, `provider_key_missing`,
 * `backend_unavailable` 503; `budget_exceeded` 429.
 */
export type InferenceErrorCode =
  | 'provider_key_missing'
  | 'role_not_configured'
  | 'role_no_backend'
  | 'model_unknown'
  | 'backend_unavailable'
  | 'budget_exceeded';

/** Error codes of provider registration (422 unless noted). */
export type RegistrationErrorCode =
  | 'provider_redirect'     // the base URL answered 3xx; the message names the Location
  | 'provider_unreachable'  // connection refused, DNS failure, timeout
  | 'provider_key_missing'  // the provider answered 401/403 and no api_key was given
  | 'provider_auth_failed'  // the provider refused the given api_key
  | 'provider_probe_failed'; // /models answered something other than an OpenAI model list

/** Where provider API keys are kept (reported by GET /v1/internal/providers and each provider view). */
export type SecretStoreKind = 'os_keychain' | 'encrypted_file';

/** Router config slice (main/config/services/inference-router.ts). */
export interface RouterConfig extends CommonServiceConfig {
  service: 'inference-router';
  /** Models folder; GGUF files are read from `<modelsDir>/llm/*.gguf`. */
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
   * Where provider API keys live (SVC_SECRET_STORE): `auto` (OS keychain when one answers, else the
   * encrypted file), `keychain` (refuse to start without one), `file` (always the encrypted file).
   */
  secretStore?: 'auto' | 'keychain' | 'file';
}

/** Body of `POST /v1/internal/providers` (DESIGN.md). `api_key` is stored encrypted, never returned. */
export interface ProviderInput {
  name: string;
  base_url: string;
  adapter: AdapterKind;
  api_key?: string | null;
}

/** A provider as routes show it (never its key). */
export interface ProviderView {
  id: string;
  name: string;
  base_url: string;
  adapter: AdapterKind;
  /** Model ids the provider listed at the last probe. */
  models: string[];
  /** `remote` (registered) or `local` (the embedded engine). */
  kind: 'remote' | 'local';
  has_api_key: boolean;
  /** Where keys are kept. */
  secret_store: SecretStoreKind;
  created_at: string | null;
  updated_at: string | null;
  /** RFC 3339 time of the last successful probe. */
  probed_at: string | null;
}

/** One model in `/v1/models` or a provider's model list. */
export interface ModelView {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  provider_id: string | null;
  /** True for role aliases (`default`, ...). */
  svc_role?: boolean;
  /** sha256 of the GGUF, for local models. */
  weight_hash?: string | null;
}

/** One ordered target of a role. */
export interface RoleTarget { provider_id: string; model: string }

/** Body of `PUT /v1/internal/roles/{role}`: one target (DESIGN.md) or an ordered fallback list. */
export type RoleInput = RoleTarget | { targets: RoleTarget[] };

/** A role and its ordered targets. */
export interface RoleView {
  role: ModelRole;
  configured: boolean;
  targets: RoleTarget[];
  updated_at: string | null;
}

/** One row of `GET /v1/routes`: a role's targets with their health. */
export interface RouteView {
  role: ModelRole;
  targets: Array<RoleTarget & {
    provider_name: string | null;
    adapter: AdapterKind | null;
    /** False when the provider is gone or no longer lists the model. */
    available: boolean;
    /** RFC 3339 end of the cooldown of a backend that failed recently, else null. */
    cooling_down_until: string | null;
  }>;
}
