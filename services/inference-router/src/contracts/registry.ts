/**
 * Registry administration shapes of the inference router (spec "Inference router", "Other
 * resources"; DESIGN.md "Request bodies the spec leaves open"): providers, their models, and the
 * eight model roles with their ordered targets. TypeBox schemas; types derived from them.
 *
 * Request schemas emit exactly the JSON schemas the routes validated with before issue 10, so a
 * refused body answers the same 400 `{error, code, field}`. Response schemas list their properties in
 * the order the answers have always had (fast-json-stringify writes them in schema order).
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { Nullable, OrNull, StringEnum } from '../../../shared/kit/schema.js';

/** A string or null in an answer. */
const NullableString = OrNull(Type.String());

/** The canonical role aliases (spec "Other resources"). */
export const MODEL_ROLES = ['default', 'title', 'classifier', 'memory', 'profile_curation', 'vision', 'guardrail', 'knowledge'] as const;

/** One of the eight role aliases. */
export type ModelRole = (typeof MODEL_ROLES)[number];

/** Id and name of the embedded engine's provider (DESIGN.md: GGUF files are provider `local`). */
export const LOCAL_PROVIDER_ID = 'local';

/** Upstream API shape of a provider (spec "Other resources"). */
export const AdapterKindSchema = StringEnum(['chat_completions', 'responses'] as const);
/** `chat_completions` or `responses`. */
export type AdapterKind = Static<typeof AdapterKindSchema>;

/** Where provider API keys are kept (reported by GET /v1/internal/providers and each provider view). */
export const SecretStoreKindSchema = StringEnum(['os_keychain', 'encrypted_file'] as const);
/** `os_keychain` or `encrypted_file`. */
export type SecretStoreKind = Static<typeof SecretStoreKindSchema>;

/** Params `{id}` of the provider routes. */
export const ProviderIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });

/** Params `{role}` of the role routes (any name; the domain answers 400 for one outside the eight). */
export const RoleParams = Type.Object({ role: Type.String({ minLength: 1, maxLength: 64 }) });

/** Query of `GET /v1/internal/providers/{id}/models`: `refresh=true` re-probes a remote provider. */
export const ProviderModelsQuery = Type.Object({ refresh: Type.Optional(Type.Boolean({ default: false })) });

const providerFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  base_url: Type.String({ minLength: 1, maxLength: 2048 }),
  adapter: AdapterKindSchema,
  api_key: Type.Optional(Nullable(Type.String({ maxLength: 8192 }))),
};

/** Body of `POST /v1/internal/providers` (DESIGN.md). `api_key` is stored encrypted, never returned. */
export const ProviderInputSchema = Type.Object(providerFields, { additionalProperties: false });
/** A provider to register. */
export type ProviderInput = Static<typeof ProviderInputSchema>;

/** Body of `PATCH|PUT /v1/internal/providers/{id}`: at least one field; `api_key: null` clears the key. */
export const ProviderPatchSchema = Type.Object({
  name: Type.Optional(providerFields.name),
  base_url: Type.Optional(providerFields.base_url),
  adapter: Type.Optional(AdapterKindSchema),
  api_key: providerFields.api_key,
}, { additionalProperties: false, minProperties: 1 });
/** A change to a provider. */
export type ProviderPatch = Static<typeof ProviderPatchSchema>;

/** A provider as routes show it (never its key). */
export const ProviderViewSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  base_url: Type.String(),
  adapter: AdapterKindSchema,
  /** Model ids the provider listed at the last probe. */
  models: Type.Array(Type.String()),
  /** `remote` (registered) or `local` (the embedded engine). */
  kind: StringEnum(['remote', 'local'] as const),
  has_api_key: Type.Boolean(),
  /** Where keys are kept. */
  secret_store: SecretStoreKindSchema,
  created_at: NullableString,
  updated_at: NullableString,
  /** RFC 3339 time of the last successful probe. */
  probed_at: NullableString,
});
/** A provider as routes show it. */
export type ProviderView = Static<typeof ProviderViewSchema>;

/** `GET /v1/internal/providers`: every provider (the local engine last) and where keys are kept. */
export const ProviderListSchema = Type.Object({ items: Type.Array(ProviderViewSchema), secret_store: SecretStoreKindSchema });
/** Answer of `GET /v1/internal/providers`. */
export type ProviderList = Static<typeof ProviderListSchema>;

/** One model in `/v1/models` or a provider's model list. */
export const ModelViewSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  /** Unix seconds. */
  created: Type.Number(),
  owned_by: Type.String(),
  provider_id: NullableString,
  /** True for role aliases (`default`, ...). */
  svc_role: Type.Optional(Type.Boolean()),
  /** sha256 of the GGUF, for local models (null until hashed). */
  weight_hash: Type.Optional(NullableString),
});
/** One model. */
export type ModelView = Static<typeof ModelViewSchema>;

/** `GET /v1/internal/providers/{id}/models`. */
export const ProviderModelsSchema = Type.Object({ items: Type.Array(ModelViewSchema) });

const targetFields = {
  provider_id: Type.String({ minLength: 1, maxLength: 128 }),
  model: Type.String({ minLength: 1, maxLength: 512 }),
};

/** One ordered target of a role (a provider id, or a provider name when mapping). */
export const RoleTargetSchema = Type.Object(targetFields, { additionalProperties: false });
/** One target. */
export type RoleTarget = Static<typeof RoleTargetSchema>;

/** Body of `PUT /v1/internal/roles/{role}`: one target (DESIGN.md) or an ordered fallback list (1-16). */
export const RoleInputSchema = Type.Union([
  RoleTargetSchema,
  Type.Object({ targets: Type.Array(RoleTargetSchema, { minItems: 1, maxItems: 16 }) }, { additionalProperties: false }),
]);
/** A role mapping. */
export type RoleInput = Static<typeof RoleInputSchema>;

const TargetView = Type.Object({ provider_id: Type.String(), model: Type.String() });

/** A role and its ordered targets. */
export const RoleViewSchema = Type.Object({
  role: StringEnum(MODEL_ROLES),
  configured: Type.Boolean(),
  targets: Type.Array(TargetView),
  updated_at: NullableString,
});
/** A role as routes show it. */
export type RoleView = Static<typeof RoleViewSchema>;

/** `GET /v1/internal/roles`: all eight roles. */
export const RoleListSchema = Type.Object({ items: Type.Array(RoleViewSchema) });

/** An answer without a body (204; 499 when the client went away). */
export const NoContent = Type.Unsafe<undefined>({ type: 'null', description: 'no body' });
