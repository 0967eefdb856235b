/**
 * Per-user OAuth integrations (issue 18 item 1; spec "Agent runtime surfaces":
 * `/v1/admin/oauth-providers/*`, `/v1/oauth/{provider_slug}/start|callback|poll|status`, `DELETE
 * /v1/oauth/{provider_slug}`). Admins configure providers (the client secret is NAMED, a tenant
 * secret, never a value); a user connects one with authorization code + PKCE S256; tokens are
 * sealed at rest and never answered.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { OrNull, StringEnum, Timestamp } from './atoms.js';
import { SECRET_NAME_PATTERN } from './secrets.js';

/** Pattern of a provider slug. */
export const OAUTH_SLUG_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}$';
/** How long a started flow (its `state`) can be completed, ms (10 min). */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;

/** `{slug}` path parameter (checked in the domain so a bad slug answers 404 `provider_not_found`). */
export const OAuthSlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 128 }) });

const Url = Type.String({ minLength: 1, maxLength: 2048 });
const Scopes = Type.Array(Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' }), { maxItems: 50 });

/** The fields of a provider write beside its slug. */
const ProviderFields = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  issuer: Type.Optional(OrNull(Url)),
  authorization_endpoint: Type.Optional(OrNull(Url)),
  token_endpoint: Type.Optional(OrNull(Url)),
  revocation_endpoint: Type.Optional(OrNull(Url)),
  client_id: Type.String({ minLength: 1, maxLength: 512 }),
  client_secret_ref: Type.String({ pattern: SECRET_NAME_PATTERN }),
  scopes: Scopes,
};

/**
 * `POST /v1/admin/oauth-providers` (and `PUT .../{slug}`) body: `issuer` (OIDC discovery) or both
 * `authorization_endpoint` and `token_endpoint`; `client_secret_ref` names a TENANT secret.
 */
export const OAuthProviderInputSchema = Type.Object({ slug: Type.String({ pattern: OAUTH_SLUG_PATTERN }), ...ProviderFields }, { additionalProperties: false });
/** A provider write. */
export type OAuthProviderInput = Static<typeof OAuthProviderInputSchema>;

/** `PATCH /v1/admin/oauth-providers/{slug}` body: any field but the slug. */
export const OAuthProviderPatchSchema = Type.Partial(Type.Object(ProviderFields, { additionalProperties: false }));
/** A provider patch. */
export type OAuthProviderPatch = Static<typeof OAuthProviderPatchSchema>;

/** A provider as answers show it (never a secret value). */
export const OAuthProviderViewSchema = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  issuer: OrNull(Type.String()),
  authorization_endpoint: Type.String(),
  token_endpoint: Type.String(),
  revocation_endpoint: OrNull(Type.String()),
  client_id: Type.String(),
  client_secret_ref: Type.String(),
  scopes: Type.Array(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
/** A provider view. */
export type OAuthProviderView = Static<typeof OAuthProviderViewSchema>;

/** `GET /v1/admin/oauth-providers` answer. */
export const OAuthProviderListSchema = Type.Object({ providers: Type.Array(OAuthProviderViewSchema) });

/** `POST /v1/oauth/{slug}/start` answer. */
export const OAuthStartSchema = Type.Object({ authorization_url: Type.String(), expires_at: Timestamp });
/** A started flow. */
export type OAuthStart = Static<typeof OAuthStartSchema>;

/** States of a user's integration. */
export const OAUTH_STATUSES = ['connected', 'pending', 'needs_reconnect', 'disconnected'] as const;
/** A state of a user's integration. */
export type OAuthStatusValue = (typeof OAUTH_STATUSES)[number];

/** `POST /v1/oauth/{slug}/poll` answer: `done` once the latest flow ended (connected or failed). */
export const OAuthPollSchema = Type.Object({
  slug: Type.String(),
  status: StringEnum(OAUTH_STATUSES),
  done: Type.Boolean(),
  error: Type.Optional(Type.String()),
});
/** A poll answer. */
export type OAuthPoll = Static<typeof OAuthPollSchema>;

/** `GET /v1/oauth/{slug}/status` answer. */
export const OAuthStatusSchema = Type.Object({
  slug: Type.String(),
  status: StringEnum(OAUTH_STATUSES),
  scopes: Type.Array(Type.String()),
  expires_at: OrNull(Timestamp),
  connected_at: OrNull(Timestamp),
  last_refreshed_at: OrNull(Timestamp),
});
/** A status answer. */
export type OAuthStatus = Static<typeof OAuthStatusSchema>;

/** `DELETE /v1/oauth/{slug}` answer; `revoked`: the provider's RFC 7009 endpoint accepted the revocation. */
export const OAuthDisconnectSchema = Type.Object({ slug: Type.String(), status: Type.Literal('disconnected'), revoked: Type.Boolean() });
/** A disconnect answer. */
export type OAuthDisconnect = Static<typeof OAuthDisconnectSchema>;

/** `GET /v1/oauth/{slug}/callback` query (both optional: a missing one is `oauth_state_invalid` / `oauth_exchange_failed`). */
export const OAuthCallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  state: Type.Optional(Type.String({ maxLength: 512 })),
  error: Type.Optional(Type.String({ maxLength: 512 })),
  iss: Type.Optional(Type.String({ maxLength: 2048 })),
});

/** Error codes of OAuth integrations (issue 18 item 1). */
export const OAUTH_ERRORS = {
  /** An OAuth provider slug already configured in the tenant. */
  provider_exists: 409,
  /** No OAuth provider with this slug (or the slug is malformed). */
  provider_not_found: 404,
  /** A provider without an issuer nor both endpoints, or whose discovery failed. */
  provider_invalid: 400,
  /** A callback `state` that was never issued (or forged). */
  oauth_state_invalid: 400,
  /** A callback `state` past its 10 minutes. */
  oauth_state_expired: 400,
  /** A callback `state` already used (replay). */
  oauth_state_used: 400,
  /** The provider refused the code, or could not be reached. */
  oauth_exchange_failed: 400,
  /** No connected integration for this provider (or it needs reconnecting) when a token is asked. */
  oauth_not_connected: 409,
} as const;
