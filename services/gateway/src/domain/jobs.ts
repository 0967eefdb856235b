/**
 * `GET /v1/admin/jobs` (issue 19 item 5): background work across services in one shape, each
 * cancellable while it runs (`POST /v1/admin/jobs/{id}/cancel`). Kinds and where they come from:
 * `connector_sync` (agent-runtime `/v1/admin/context/sync`), `knowledge_ingest` (knowledge
 * `/v1/knowledge/jobs`: batch ingests, cancellable, and re-embedding, not), `audit_seal` (audit
 * `/v1/admin/audit/seal-passes`), `memory_consolidation` (memory `/v1/memory/consolidations`) and
 * `backup` (the gateway's own BackupService). A source that does not answer is named in `unreachable`.
 */

/** One job, whatever service runs it. `id` is `<kind>:<service's id>`. */
export interface AdminJob {
  id: string;
  kind: string;
  service: string;
  state: string;
  /** `unit`: what is counted (`items` when absent; `bytes`, `turns`, `scopes`, `chunks`); `total` 0 when unknown. */
  progress: { done: number; total: number; failed: number; unit?: string } | null;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
  cancellable: boolean;
  /** Kind-specific facts (a backup's trigger and write pause, a cancelled ingest's kept counts, ...). */
  detail?: Record<string, unknown>;
}

/** The answer of `GET /v1/admin/jobs`. */
export interface AdminJobList {
  jobs: AdminJob[];
  covered: string[];
  not_covered: Array<{ kind: string; reason: string }>;
  /** Sources that could not be read this time (service down), by kind. */
  unreachable: string[];
}

/** A kind served by another service: its list path, cancel path and mapping to `AdminJob`s. */
export interface RemoteJobSource {
  service: 'agent-runtime' | 'knowledge' | 'audit' | 'memory';
  list: string;
  cancel: (id: string) => string;
  map(body: unknown): AdminJob[];
}

/** The remote kinds this build aggregates, with their cancel path on the owning service. */
export const JOB_SOURCES: Record<'connector_sync' | 'knowledge_ingest' | 'audit_seal' | 'memory_consolidation', RemoteJobSource> = {
  connector_sync: { service: 'agent-runtime', list: '/v1/admin/context/sync', cancel: (id: string) => `/v1/admin/context/sync/${encodeURIComponent(id)}/cancel`, map: (b) => connectorSyncJobs(b) },
  knowledge_ingest: { service: 'knowledge', list: '/v1/knowledge/jobs?limit=100', cancel: (id: string) => `/v1/knowledge/jobs/${encodeURIComponent(id)}/cancel`, map: (b) => knowledgeJobs(b) },
  audit_seal: { service: 'audit', list: '/v1/admin/audit/seal-passes', cancel: (id: string) => `/v1/admin/audit/seal-passes/${encodeURIComponent(id)}/cancel`, map: (b) => sealPassJobs(b) },
  memory_consolidation: { service: 'memory', list: '/v1/memory/consolidations', cancel: (id: string) => `/v1/memory/consolidations/${encodeURIComponent(id)}/cancel`, map: (b) => consolidationJobs(b) },
};

/** Kinds the gateway runs itself (issue 19 item 5): backups (domain/backups.ts). */
export const LOCAL_JOB_KINDS = ['backup'] as const;

/** Work that exists but is not listed here yet, and why (none left in this build). */
export const NOT_COVERED: ReadonlyArray<{ kind: string; reason: string }> = [];

interface BackupJobView { id: string; trigger: string; state: string; bytes: number; error: string | null; started_at: string; finished_at: string | null; write_pause_ms: number | null }

/** Map the gateway's backup jobs to `AdminJob`s (`progress.done`: archive bytes written; total unknown: 0). */
export function backupJobs(jobs: readonly BackupJobView[]): AdminJob[] {
  return jobs.map((j) => ({
    id: `backup:${j.id}`, kind: 'backup', service: 'gateway', state: j.state,
    progress: { done: j.bytes, total: 0, failed: 0, unit: 'bytes' }, error: j.error, started_at: j.started_at, finished_at: j.finished_at,
    cancellable: j.state === 'running', detail: { trigger: j.trigger, write_pause_ms: j.write_pause_ms },
  }));
}

interface SealPassView { id: string; state: string; sealed: number; batches: number; error: string | null; started_at: string; finished_at: string | null }

/** Map audit's seal passes (`{passes}`, or one pass) to `AdminJob`s (`progress.done`: turns sealed). */
export function sealPassJobs(body: unknown): AdminJob[] {
  const b = body as { passes?: SealPassView[]; jobs?: SealPassView[] } | null;
  return (b?.passes ?? b?.jobs ?? []).map((p) => ({
    id: `audit_seal:${p.id}`, kind: 'audit_seal', service: 'audit', state: p.state,
    progress: { done: p.sealed, total: 0, failed: 0, unit: 'turns' }, error: p.error, started_at: p.started_at, finished_at: p.finished_at,
    cancellable: p.state === 'running', detail: { batches: p.batches },
  }));
}

interface ConsolidationView { id: string; target: string; state: string; scopes_done: number; scopes_total: number; merged: number | null; expired_removed: number | null; error: string | null; started_at: string; finished_at: string | null }

/** Map memory's consolidation passes to `AdminJob`s (`progress`: scopes). */
export function consolidationJobs(body: unknown): AdminJob[] {
  const jobs = (body as { jobs?: ConsolidationView[] } | null)?.jobs ?? [];
  return jobs.map((j) => ({
    id: `memory_consolidation:${j.id}`, kind: 'memory_consolidation', service: 'memory', state: j.state,
    progress: { done: j.scopes_done, total: j.scopes_total, failed: 0, unit: 'scopes' }, error: j.error, started_at: j.started_at, finished_at: j.finished_at,
    cancellable: j.state === 'running', detail: { target: j.target, merged: j.merged, expired_removed: j.expired_removed },
  }));
}

interface SyncJobView { job_id: string; connector_id: string | null; state: string; progress: { total: number; done: number; failed: number }; started_at: string | null; finished_at: string | null; error: string | null }

/** Map the runtime's sync jobs to `AdminJob`s. */
export function connectorSyncJobs(body: unknown): AdminJob[] {
  const jobs = (body as { jobs?: SyncJobView[] } | null)?.jobs ?? [];
  return jobs.map((j) => ({
    id: `connector_sync:${j.job_id}`, kind: 'connector_sync', service: 'agent-runtime', state: j.state,
    progress: j.progress, error: j.error, started_at: j.started_at, finished_at: j.finished_at,
    cancellable: j.state === 'queued' || j.state === 'running',
  }));
}

interface KnowledgeJobView { job_id: string; kind: string; status: string; done: number; total: number; error: string | null; created_at: string; updated_at: string; kept?: unknown }

/** Map knowledge's jobs (`{jobs: JobView[]}`) to `AdminJob`s (`kind` knowledge_ingest; the service's own kind is `batch_ingest` (cancellable) or `reembed`). */
export function knowledgeJobs(body: unknown): AdminJob[] {
  const jobs = (body as { jobs?: KnowledgeJobView[] } | null)?.jobs ?? [];
  return jobs.map((j) => ({
    id: `knowledge_ingest:${j.job_id}`, kind: 'knowledge_ingest', service: 'knowledge', state: j.status,
    progress: { done: j.done, total: j.total, failed: 0, unit: 'chunks' }, error: j.error, started_at: j.created_at,
    finished_at: j.status === 'running' ? null : j.updated_at, cancellable: j.status === 'running' && j.kind === 'batch_ingest',
    detail: { knowledge_kind: j.kind, ...(j.kept ? { kept: j.kept } : {}) },
  }));
}

/** Split an admin job id into kind and the service's id; null when the kind is not covered. */
export function parseJobId(id: string): { kind: keyof typeof JOB_SOURCES | 'backup'; id: string } | null {
  const at = id.indexOf(':');
  if (at <= 0) return null;
  const kind = id.slice(0, at);
  const rest = id.slice(at + 1);
  if (!(kind in JOB_SOURCES || kind === 'backup') || !rest) return null;
  return { kind: kind as keyof typeof JOB_SOURCES | 'backup', id: rest };
}
