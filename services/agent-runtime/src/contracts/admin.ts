/**
 * Admin surfaces of the runtime (issue 13 item 8; spec "Agent runtime surfaces": `/v1/admin/mission-control`,
 * `/v1/admin/onboarding/*`, `/v1/admin/policies/*`). Every route needs the `admin` role (403 `admin_required`).
 *
 * A section that comes from a peer carries `state` (`ok`, or `unavailable` with `error` saying why)
 * so one unreachable service never fails the whole page.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { AgentId, OrNull, StringEnum, Timestamp } from './atoms.js';
import { ApprovalViewSchema, PolicyListSchema } from './approvals.js';

/** State of a section fetched from a peer. */
export const PeerStateSchema = StringEnum(['ok', 'unavailable'] as const);
/** State of a section fetched from a peer. */
export type PeerState = Static<typeof PeerStateSchema>;

const Peer = { state: PeerStateSchema, error: OrNull(Type.String()) };

/** One service as its `/readyz` answered (probed by the runtime, cached about 2 s). */
export const ServiceHealthSchema = Type.Object({
  name: Type.String(),
  /** `ready` on 200, `starting` on another answer, `failed` when unreachable within the probe timeout. */
  state: StringEnum(['ready', 'starting', 'failed'] as const),
  /** Probe round trip, ms (null for the runtime itself). */
  latency_ms: OrNull(Type.Number()),
  /** What `/readyz` said when not ready (its `reason`/`error`, or the connection error), else null. */
  detail: OrNull(Type.String()),
});
/** One service's health. */
export type ServiceHealth = Static<typeof ServiceHealthSchema>;

/** A turn the runtime is running now. */
export const ActiveTurnSchema = Type.Object({
  turn_id: OrNull(Type.String()),
  session_id: Type.String(),
  user_id: Type.String(),
  agent_id: Type.String(),
  started_at: Timestamp,
  running_ms: Type.Number(),
  /** The run is parked on an approval. */
  waiting_approval: Type.Boolean(),
});
/** A running turn. */
export type ActiveTurn = Static<typeof ActiveTurnSchema>;

/** One recent error. */
export const RecentErrorSchema = Type.Object({
  at: Timestamp,
  kind: StringEnum(['turn_failed', 'tool_error', 'guard_unavailable'] as const),
  code: OrNull(Type.String()),
  message: OrNull(Type.String()),
  turn_id: OrNull(Type.String()),
  agent_id: Type.String(),
});

/** A knowledge document as mission control lists it (failed or indexing). */
export const IndexDocumentSchema = Type.Object({
  document_id: Type.String(),
  title: Type.String(),
  filename: OrNull(Type.String()),
  status: Type.String(),
  last_error: OrNull(Type.String()),
  owner_user_id: Type.String(),
  updated_at: Type.String(),
});
/** A listed document. */
export type IndexDocument = Static<typeof IndexDocumentSchema>;

/** Budget of the tenant as observability reports it (`GET /v1/internal/budgets/{tenant}`). */
export const SpendSchema = Type.Object({
  ...Peer,
  period: OrNull(Type.String()),
  period_start: OrNull(Type.String()),
  spend_usd: OrNull(Type.Number()),
  soft_limit_usd: OrNull(Type.Number()),
  hard_limit_usd: OrNull(Type.Number()),
  /** `ok`, `soft_exceeded`, `hard_exceeded`, or null when unknown. */
  budget_state: OrNull(Type.String()),
});
/** Spend against the budget. */
export type Spend = Static<typeof SpendSchema>;

/** A live sandbox session (from the sandbox's `GET /sessions`). */
export const SandboxSessionSchema = Type.Object({
  tenant_id: Type.String(),
  session_id: Type.String(),
  state: Type.String(),
  runtime: Type.String(),
  age_seconds: Type.Number(),
  idle_seconds: Type.Number(),
});

/** Sandbox sessions and readiness. */
export const SandboxSectionSchema = Type.Object({
  ...Peer,
  count: Type.Integer(),
  max_sessions: OrNull(Type.Integer()),
  warm: OrNull(Type.Integer()),
  /** Docker and image state and the fix command when the sandbox cannot run (its readiness fields). */
  readiness: OrNull(Type.Object({}, { additionalProperties: true })),
  items: Type.Array(SandboxSessionSchema),
});
/** Sandbox section. */
export type SandboxSection = Static<typeof SandboxSectionSchema>;

/** Knowledge index jobs: documents indexing and failed, vectors pending. */
export const IndexJobsSchema = Type.Object({
  ...Peer,
  indexing: Type.Integer(),
  failed: Type.Integer(),
  /** More documents than listed (the lists stop at 50). */
  truncated: Type.Boolean(),
  chunks_pending_vectors: OrNull(Type.Integer()),
  reembedding: OrNull(Type.Object({ running: Type.Boolean(), done: Type.Integer(), total: Type.Integer() })),
  indexing_documents: Type.Array(IndexDocumentSchema),
  failed_documents: Type.Array(IndexDocumentSchema),
});
/** Index jobs section. */
export type IndexJobs = Static<typeof IndexJobsSchema>;

/** `GET /v1/admin/mission-control`: the workstation now. */
export const MissionControlSchema = Type.Object({
  generated_at: Timestamp,
  tenant_id: Type.String(),
  services: Type.Object({ ready: Type.Integer(), total: Type.Integer(), checked_at: Timestamp, items: Type.Array(ServiceHealthSchema) }),
  active_turns: Type.Object({ count: Type.Integer(), items: Type.Array(ActiveTurnSchema) }),
  approvals: Type.Object({ pending: Type.Integer(), items: Type.Array(ApprovalViewSchema) }),
  errors: Type.Object({
    window_seconds: Type.Integer(),
    /** Where the counts come from: the runtime's own turn records (since migration 0006). */
    source: Type.String(),
    total: Type.Integer(),
    turn_failed: Type.Integer(),
    tool_errors: Type.Integer(),
    guard_unavailable: Type.Integer(),
    recent: Type.Array(RecentErrorSchema),
  }),
  spend: SpendSchema,
  sandbox: SandboxSectionSchema,
  index_jobs: IndexJobsSchema,
});
/** `GET /v1/admin/mission-control`. */
export type MissionControl = Static<typeof MissionControlSchema>;

// ---- onboarding ---------------------------------------------------------------------------------

/** Ids of the first-run checklist items, in order. */
export const ONBOARDING_ITEMS = ['admin_created', 'provider_default_model', 'embedding_model', 'sandbox_image', 'phone_paired', 'backup_set'] as const;

/** One checklist item with its live state and where to fix it. */
export const OnboardingItemSchema = Type.Object({
  id: StringEnum(ONBOARDING_ITEMS),
  title: Type.String(),
  state: StringEnum(['done', 'todo', 'warning'] as const),
  detail: Type.String(),
  /** A link to the page that fixes it (renderer path), or null when nothing can be done yet. */
  fix: OrNull(Type.Object({ label: Type.String(), href: Type.String() })),
});
/** One checklist item. */
export type OnboardingItem = Static<typeof OnboardingItemSchema>;

/** `GET /v1/admin/onboarding/checklist`. */
export const OnboardingChecklistSchema = Type.Object({
  items: Type.Array(OnboardingItemSchema),
  done: Type.Integer(),
  total: Type.Integer(),
  checked_at: Timestamp,
});
/** `GET /v1/admin/onboarding/checklist`. */
export type OnboardingChecklist = Static<typeof OnboardingChecklistSchema>;

// ---- policies -----------------------------------------------------------------------------------

/** The guardrail's policy view (`GET /v1/guard/policy`), passed through as the guardrail answers it. */
export const GuardPolicyViewSchema = Type.Object({}, { additionalProperties: true });

/** `GET /v1/admin/policies`: tool policies and the guardrail's effective policy in one place. */
export const PoliciesSummarySchema = Type.Object({
  tools: PolicyListSchema,
  guardrail: Type.Object({ ...Peer, policy: OrNull(GuardPolicyViewSchema) }),
});
/** `GET /v1/admin/policies`. */
export type PoliciesSummary = Static<typeof PoliciesSummarySchema>;

/** Query of `GET|DELETE /v1/admin/policies/guardrail`. */
export const GuardPolicyQuerySchema = Type.Object({ agent_id: Type.Optional(AgentId) });

/** Body of `PUT /v1/admin/policies/guardrail`: a partial override (checked by the guardrail), tenant level without `agent_id`. */
export const GuardPolicyPutSchema = Type.Object({
  agent_id: Type.Optional(AgentId),
  policy: Type.Object({}, { additionalProperties: true }),
});
/** Body of `PUT /v1/admin/policies/guardrail`. */
export type GuardPolicyPut = Static<typeof GuardPolicyPutSchema>;
