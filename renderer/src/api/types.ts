/**
 * Wire types and constants the renderer uses, from the services' `contracts.ts` (Node-free; the
 * renderer may import values from them, DESIGN.md layout, and nothing else from services: the lint
 * rule holds it). Only what no service owns is declared here: the generic list shape.
 */
export type { TokenResponse, AuthConfigView, ProfileView, UserView, UserPage, CreateUserInput, AuthErrorCode } from '../../../services/auth/src/contracts.js';
export type {
  DeviceView, DeviceList, PairingCreated, PairingStatus, RecoveryCodes, RecoveryCodesStatus, ChallengeMethod, ChallengeItem, EnrollResult, AnswerResult,
} from '../../../services/auth/src/contracts.js';
export type { SecondFactorPolicy, SignInPage, SignInView } from '../../../services/auth/src/contracts.js';
export type { UpstreamIdpView, UpstreamIdpTestResult, CreateUpstreamIdp } from '../../../services/auth/src/contracts/upstream-sso.js';
export type { DirauthSettingsView, DirauthTestResult } from '../../../services/dirauth/src/contracts.js';
export type { LoginChallengeAnswer, Login2faPending } from '../../../services/gateway/src/contracts.js';
export type { GuardStatus } from '../../../services/guardrail/src/contracts.js';
export type {
  ReceiptObject, ReceiptDetail, ReceiptBundle, ProofExport, ReceiptVerifyResponse, ReceiptListItem, ChainReport, ChainCheck, LeafEvent, SuffixRow, EnvelopeRecord,
} from '../../../services/audit/src/contracts.js';
export type {
  SessionView, SessionDetail, MessageView, FolderView, ApprovalView, ReceiptRef, ChatRequest, StreamEventMap, ProcessingTrace,
} from '../../../services/agent-runtime/src/contracts.js';
export type {
  MissionControl, OnboardingChecklist, OnboardingItem, PermissionProfile, ProfileInput, RolesView, EffectiveAccess, PoliciesSummary, AgentOps, AgentStats, AgentDay,
} from '../../../services/agent-runtime/src/contracts.js';
export type { NotificationView, NotificationPage, NotificationKind } from '../../../services/agent-runtime/src/contracts.js';
export type { ToolList } from '../../../services/agent-runtime/src/contracts.js';
export type { UserProfile, UserProfileUpdate, ProfileDraft, ProfileChange, SecretView, SecretList } from '../../../services/agent-runtime/src/contracts.js';
export { SECRET_NAME_PATTERN, SECRET_VALUE_MAX_BYTES } from '../../../services/agent-runtime/src/contracts.js';
export type { UsageReport, BudgetStatus, BudgetInput, BudgetPeriod, GenerationStats, StatsBucket } from '../../../services/observability/src/contracts.js';
export type { GatewayStatus as StatusView } from '../../../services/gateway/src/contracts.js';
export { MODEL_ROLES } from '../../../services/inference-router/src/contracts.js';
export type { ProviderView, ProviderList, RoleView, RoleTarget, AdapterKind } from '../../../services/inference-router/src/contracts.js';
export { ADMIN_ROLES, TAG_PATTERN } from '../../../services/knowledge/src/contracts.js';
export type {
  IngestResult, BatchIngestRequest, BatchIngestResult, JobView, SearchResult, DocumentView, DocumentDetail, DocumentContent, Audience, AudienceMembers,
  KnowledgeStatus, VisibilityMode, DocumentPatchRequest, SearchResponse as SearchAnswer,
} from '../../../services/knowledge/src/contracts.js';
export type { SessionList as SandboxSessionList, SessionInfo as SandboxSessionInfo, SandboxReadiness } from '../../../services/sandbox/src/contracts.js';
export { MEMORY_TYPES } from '../../../services/memory/src/contracts.js';
export type { MemoryRecord, MemoryType, StoreRequest as MemoryStoreRequest, UpdateRequest as MemoryUpdateRequest } from '../../../services/memory/src/contracts.js';
export type {
  ContextRecord, ContextPart, ContextItem, ContextStep, Overview, OverviewProvider, IntegrationStatus, IntegrationStatusList,
} from '../../../services/agent-runtime/src/contracts.js';
import type { Citation as ToolCitation } from '../../../services/agent-runtime/src/contracts.js';

/** A list answer (DESIGN.md: lists answer `{items, next_cursor?}`). */
export interface Page<T> { items: T[]; next_cursor?: string | null }

/**
 * A source an answer cites (`knowledge_search`'s `Citation`, agent-runtime's tool contract). A
 * stored session keeps only the tool's result, whose passages carry no score.
 */
export type Citation = Omit<ToolCitation, 'score'> & Partial<Pick<ToolCitation, 'score'>>;

// ---- Agents, skills and MCP servers (issue 17 item 6): agent-runtime's contracts (items 1-3),
// under the names the renderer's pages use.
export type {
  AgentView, AgentCreate as AgentInput, CatalogScope, SkillView, SkillCreate as SkillInput, SkillVersion as SkillVersionView,
  McpServerView, McpServerInput, McpHealth as McpHealthView, McpToolList, McpAuthorizationView,
} from '../../../services/agent-runtime/src/contracts.js';
