/**
 * Wire types the renderer uses, imported as types only from the services' contracts (the lint rule
 * forbids anything else). Shapes the spec leaves open and no contract pins yet are declared here,
 * each tolerant of a missing field.
 */
export type { TokenResponse, AuthConfigView, ProfileView, UserView, UserPage, CreateUserInput } from '../../../services/auth/src/contracts.js';
export type {
  ReceiptObject, ReceiptDetail, ReceiptBundle, ProofExport, ReceiptVerifyResponse, ReceiptListItem, ChainReport, LeafEvent, SuffixRow, EnvelopeRecord,
} from '../../../services/audit/src/contracts.js';
export type {
  SessionView, MessageView, FolderView, ApprovalView, ReceiptRef, ChatRequest, StreamEventMap, ProcessingTrace,
} from '../../../services/agent-runtime/src/contracts.js';
export type { UsageReport, BudgetStatus, BudgetInput, GenerationStats, StatsBucket } from '../../../services/observability/src/contracts.js';

/** A list answer (DESIGN.md: lists answer `{items, next_cursor?}`). */
export interface Page<T> { items: T[]; next_cursor?: string | null }

/** One service row of `GET /v1/admin/status`. */
export interface ServiceStatus { name: string; state: string; port: number | null; uptime_seconds: number | null; restarts: number }

/** `GET /v1/admin/status`. */
export interface StatusView { tenant_id?: string; auth_enabled?: boolean; services: ServiceStatus[] }

export type { ProviderView, RoleView, RoleTarget } from '../../../services/inference-router/src/contracts.js';

/** Model roles the spec names. */
export const MODEL_ROLES = ['default', 'title', 'classifier', 'memory', 'profile_curation', 'vision', 'guardrail', 'knowledge'] as const;
