/**
 * Workspace overview and integration status contracts (spec "Agent runtime surfaces":
 * `GET /v1/overview` "workspace overview (mail providers, agents, recent activity, inference
 * providers)", `GET /v1/user/integrations/status` "connected integration status"; issue 13 items 5, 6).
 *
 * - `GET /v1/overview` -> 200 `Overview` (the caller's own activity; a peer that does not answer
 *   marks only its own section: `inference_router.state` `unavailable`, `recent_activity.documents_state`)
 * - `GET /v1/user/integrations/status` -> 200 `{items: IntegrationStatus[]}`
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { OrNull, StringEnum, Timestamp } from './atoms.js';

/**
 * State of an integration: `connected`, `disconnected` (set up, but not connected now: a token
 * expired, a server stopped), `error` (its check failed), `not_configured` (nothing set up yet).
 */
export const INTEGRATION_STATES = ['connected', 'disconnected', 'error', 'not_configured'] as const;
/** An integration state. */
export type IntegrationState = (typeof INTEGRATION_STATES)[number];

/**
 * One integration of the caller: `kind` `oauth` (a per-user OAuth connector), `mcp` (an MCP server),
 * `phone` (the paired phone, issue 14), or another source's kind; `id` is stable per source.
 */
export const IntegrationStatusSchema = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  name: Type.String(),
  state: StringEnum(INTEGRATION_STATES),
  detail: Type.Optional(Type.String()),
});
/** One integration's status. */
export type IntegrationStatus = Static<typeof IntegrationStatusSchema>;

/** `GET /v1/user/integrations/status`. */
export const IntegrationStatusListSchema = Type.Object({ items: Type.Array(IntegrationStatusSchema) });
/** The caller's integrations. */
export type IntegrationStatusList = Static<typeof IntegrationStatusListSchema>;

/**
 * Health of an inference provider, from the router's routes (`GET /v1/routes`): `healthy` (a target
 * answers), `cooling_down` (every available target failed recently and waits out its cooldown),
 * `unavailable` (the provider is gone or lists none of its routed models).
 */
export const PROVIDER_HEALTH = ['healthy', 'cooling_down', 'unavailable'] as const;

/** An inference provider that serves at least one model role, with its health. */
export const OverviewProviderSchema = Type.Object({
  id: Type.String(),
  name: OrNull(Type.String()),
  adapter: OrNull(Type.String()),
  /** Model roles it serves (`default`, `vision`, ...). */
  roles: Type.Array(Type.String()),
  models: Type.Array(Type.String()),
  health: StringEnum(PROVIDER_HEALTH),
  /** End of the cooldown when `cooling_down`. */
  cooling_down_until: OrNull(Timestamp),
});
/** An inference provider with its health. */
export type OverviewProvider = Static<typeof OverviewProviderSchema>;

/** An agent the caller can chat with. */
export const OverviewAgentSchema = Type.Object({ id: Type.String(), name: Type.String(), default: Type.Boolean() });

/** A recent session of the caller. */
export const OverviewSessionSchema = Type.Object({ id: Type.String(), title: OrNull(Type.String()), message_count: Type.Integer(), updated_at: Timestamp });
/** A recent turn of the caller (from the context records). */
export const OverviewTurnSchema = Type.Object({
  turn_id: Type.String(), session_id: Type.String(), status: Type.String(), total_tokens: Type.Integer(), created_at: Timestamp,
});
/** A recent knowledge document the caller can see. */
export const OverviewDocumentSchema = Type.Object({
  document_id: Type.String(), title: Type.String(), status: Type.String(), last_error: OrNull(Type.String()), updated_at: Timestamp,
});
/** An approval waiting for the caller's decision. */
export const OverviewApprovalSchema = Type.Object({
  id: Type.String(), tool: Type.String(), session_id: Type.String(), created_at: Timestamp, expires_at: Timestamp,
});

/** `GET /v1/overview`: the workspace at a glance, for the caller. */
export const OverviewSchema = Type.Object({
  generated_at: Timestamp,
  /** Whether the router answered (`ready`) and why not. */
  inference_router: Type.Object({ state: StringEnum(['ready', 'unavailable'] as const), detail: OrNull(Type.String()) }),
  inference_providers: Type.Array(OverviewProviderSchema),
  /** Mail providers (none exist yet: always present, empty). */
  mail_providers: Type.Array(Type.Object({}, { additionalProperties: true })),
  integrations: Type.Array(IntegrationStatusSchema),
  agents: Type.Array(OverviewAgentSchema),
  approvals_waiting: Type.Object({ count: Type.Integer(), items: Type.Array(OverviewApprovalSchema) }),
  recent_activity: Type.Object({
    sessions: Type.Array(OverviewSessionSchema),
    turns: Type.Array(OverviewTurnSchema),
    documents: Type.Array(OverviewDocumentSchema),
    /** `ok`, or `unavailable` when knowledge did not answer. */
    documents_state: StringEnum(['ok', 'unavailable'] as const),
  }),
});
/** The workspace overview. */
export type Overview = Static<typeof OverviewSchema>;
