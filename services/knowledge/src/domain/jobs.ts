/** Job progress (`GET /v1/knowledge/jobs/:job_id`): batch ingests report their chunks' vectors while they run. */
import type { Principal } from '../../../shared/identity/principal.js';
import type { Embedder } from '../../../embedder/src/contracts.js';
import type { JobView } from '../contracts.js';
import { knowledgeError } from './errors.js';
import type { DocumentStore, JobStore } from './ports.js';
import { isAdmin } from './visibility.js';
import { DomainError } from '../../../shared/kit/domain-error.js';

function nowIso(): string { return new Date().toISOString(); }

/** Dependencies of job progress. */
export interface JobsDeps {
  tenantId: string;
  jobs: JobStore;
  documents: DocumentStore;
  embedder: Embedder;
}

/** Job progress. */
export class Jobs {
  constructor(private readonly d: JobsDeps) {}

  /**
   * Progress of a job of the caller (admins: any). A running batch job counts its chunks' vectors
   * and is done once every chunk has one (or no model will make them).
   * @throws DomainError `job_not_found` (404).
   */
  /**
   * The newest `limit` jobs (1-200) the caller may see: an admin the tenant's, a user their own
   * (`GET /v1/knowledge/jobs`; issue 19 item 5, the admin jobs view lists them), each as `job()` reports it.
   */
  async list(p: Principal, limit: number): Promise<JobView[]> {
    const out: JobView[] = [];
    for (const j of await this.d.jobs.list(this.d.tenantId, isAdmin(p) ? null : p.id, limit)) out.push(await this.job(p, j.id));
    return out;
  }

  /**
   * Cancel a running batch ingest (admins; issue 19 item 5). The check runs between the pump's
   * chunk batches: the batch in flight finishes, the rest of the batch's chunks get no vectors.
   * @returns the job as it stands and what was kept (documents, chunks, chunks with vectors).
   * @throws DomainError `admin_required` (403), `job_not_found` (404), `conflict` (409: finished, or a `reembed` job).
   */
  async cancel(p: Principal, id: string): Promise<JobView & { kept: { documents: number; chunks: number; chunks_embedded: number } }> {
    if (!isAdmin(p)) throw new DomainError('admin_required', 'cancelling a job is for admins');
    const j = await this.d.jobs.get(this.d.tenantId, id);
    if (!j) throw knowledgeError('job_not_found', `no job ${id}`);
    if (j.kind !== 'batch_ingest') throw new DomainError('conflict', 'only batch ingests can be cancelled (re-embedding must finish for search to use vectors)');
    const view = await this.job(p, id);
    if (view.status !== 'running') throw new DomainError('conflict', `job ${id} has finished (${view.status})`);
    const kept = await this.d.jobs.cancelBatch(this.d.tenantId, id, nowIso());
    if (!kept) throw new DomainError('conflict', `job ${id} has finished`);
    return { ...(await this.job(p, id)), kept: { documents: kept.documents, chunks: kept.chunks, chunks_embedded: kept.embedded } };
  }

  async job(p: Principal, id: string): Promise<JobView> {
    const j = await this.d.jobs.get(this.d.tenantId, id);
    if (!j || (!isAdmin(p) && j.owner_user_id !== p.id)) throw knowledgeError('job_not_found', `no job ${id}`);
    let { done, total, status } = j;
    const extra: Partial<JobView> = {};
    if (j.kind === 'batch_ingest' && status === 'running') {
      // A batch job's id is its batch id.
      const prog = await this.d.documents.batchProgress(j.id);
      if (prog.documents > 0) {
        done = prog.embedded; total = prog.chunks;
        extra.chunks_total = prog.chunks; extra.chunks_embedded = prog.embedded;
        if (!this.d.embedder.available && this.d.embedder.status().state !== 'loading') { done = total; status = 'done'; }
        if (done >= total) { status = 'done'; await this.d.jobs.progress(j.id, total, total, 'done', null, nowIso()); }
      }
    }
    return {
      job_id: j.id, kind: j.kind, status: status as JobView['status'], done, total, progress: total ? Math.min(1, done / total) : 1,
      error: j.error, created_at: j.created_at, updated_at: j.updated_at, ...extra,
    };
  }
}
