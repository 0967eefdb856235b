/**
 * `GET /v1/admin/jobs` (issue 19 item 5): background work across services in one shape. Covered
 * kinds and where they come from: `connector_sync` (agent-runtime `GET /v1/admin/context/sync`,
 * cancel `POST /v1/admin/context/sync/{id}/cancel`) and `knowledge_ingest` (knowledge
 * `GET /v1/knowledge/jobs`: batch ingests and re-embedding, with chunk progress; not cancellable). Kinds not covered yet are listed with the
 * reason (their service has no list route), so the answer never pretends to be complete.
 */

/** One job, whatever service runs it. `id` is `<kind>:<service's id>`. */
export interface AdminJob {
  id: string;
  kind: string;
  service: string;
  state: string;
  progress: { done: number; total: number; failed: number } | null;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
  cancellable: boolean;
}

/** The answer of `GET /v1/admin/jobs`. */
export interface AdminJobList {
  jobs: AdminJob[];
  covered: string[];
  not_covered: Array<{ kind: string; reason: string }>;
  /** Sources that could not be read this time (service down), by kind. */
  unreachable: string[];
}

/** The kinds this build aggregates, with their cancel path on the owning service. */
export const JOB_SOURCES: Record<'connector_sync' | 'knowledge_ingest', { service: 'agent-runtime' | 'knowledge'; list: string; cancel: ((id: string) => string) | null; map(body: unknown): AdminJob[] }> = {
  connector_sync: { service: 'agent-runtime', list: '/v1/admin/context/sync', cancel: (id: string) => `/v1/admin/context/sync/${encodeURIComponent(id)}/cancel`, map: (b) => connectorSyncJobs(b) },
  knowledge_ingest: { service: 'knowledge', list: '/v1/knowledge/jobs?limit=100', cancel: null, map: (b) => knowledgeJobs(b) },
};

/** Work that exists but is not listed here yet, and why. */
export const NOT_COVERED: ReadonlyArray<{ kind: string; reason: string }> = [
  { kind: 'backup', reason: 'backups answer when done (issue 19 item 2); no job list route' },
  { kind: 'audit_seal', reason: 'sealing passes run on a timer inside audit and expose no job route' },
  { kind: 'memory_consolidation', reason: 'consolidation runs inside memory and exposes no job route' },
];

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

interface KnowledgeJobView { job_id: string; kind: string; status: string; done: number; total: number; error: string | null; created_at: string; updated_at: string }

/** Map knowledge's jobs (`{jobs: JobView[]}`) to `AdminJob`s (`kind` knowledge_ingest; the service's own kind is `batch_ingest` or `reembed`). */
export function knowledgeJobs(body: unknown): AdminJob[] {
  const jobs = (body as { jobs?: KnowledgeJobView[] } | null)?.jobs ?? [];
  return jobs.map((j) => ({
    id: `knowledge_ingest:${j.job_id}`, kind: 'knowledge_ingest', service: 'knowledge', state: j.status,
    progress: { done: j.done, total: j.total, failed: 0 }, error: j.error, started_at: j.created_at,
    finished_at: j.status === 'running' ? null : j.updated_at, cancellable: false,
  }));
}

/** Split an admin job id into kind and the service's id; null when the kind is not covered. */
export function parseJobId(id: string): { kind: keyof typeof JOB_SOURCES; id: string } | null {
  const at = id.indexOf(':');
  if (at <= 0) return null;
  const kind = id.slice(0, at);
  const rest = id.slice(at + 1);
  if (!(kind in JOB_SOURCES) || !rest) return null;
  return { kind: kind as keyof typeof JOB_SOURCES, id: rest };
}
