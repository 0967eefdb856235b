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

export type {
  IngestResult, BatchIngestRequest, BatchIngestResult, JobView, SearchResult, DocumentView, Audience, KnowledgeStatus, VisibilityMode,
  DocumentPatchRequest,
} from '../../../services/knowledge/src/contracts.js';
export type { MemoryRecord, MemoryType, StoreRequest as MemoryStoreRequest, UpdateRequest as MemoryUpdateRequest } from '../../../services/memory/src/contracts.js';
import type { DocumentView as KnowledgeDocument, SearchResult as KnowledgeResult } from '../../../services/knowledge/src/contracts.js';

/** A citation of a `knowledge_search` call (services/knowledge/src/tools.ts `Citation`; the renderer may not import that file). */
export interface Citation { index: number; document_id: string; document_title: string; chunk_index: number; score?: number }

/** `GET /v1/knowledge/documents/:id`: the document plus chunk previews. */
export interface DocumentDetail extends KnowledgeDocument {
  chunks?: Array<{ chunk_index: number; heading: string | null; chars: number; preview: string }>;
}

/** `GET /v1/knowledge/documents/:id/content`. */
export interface DocumentContent { document_id: string; title: string; mime_type: string | null; content: string }

/** `POST /v1/knowledge/search`. */
export interface SearchAnswer {
  results: KnowledgeResult[];
  retrieval?: { sparse: boolean; dense: boolean; dense_reason: string | null };
}

/** The four memory types, in the order the UI offers them. */
export const MEMORY_TYPE_LIST = ['user', 'feedback', 'project', 'reference'] as const;
