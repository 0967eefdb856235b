/** `jobs` (progress of batch ingests and re-embedding): SQLite implementation of `JobStore`. */
import type { Db } from '../../../shared/db/open.js';
import type { JobRow, JobStore } from '../domain/ports.js';

/** SQLite implementation of `JobStore`. */
export class SqliteJobStore implements JobStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare<[string, string, string, string, number, string, string]>(`INSERT INTO jobs (id, tenant_id, kind, status, owner_user_id, total, done, created_at, updated_at) VALUES (?, ?, ?, 'running', ?, ?, 0, ?, ?)`),
      progress: db.prepare<[number, number, string, string | null, string, string]>('UPDATE jobs SET done = ?, total = ?, status = ?, error = ?, updated_at = ? WHERE id = ?'),
      get: db.prepare<[string, string], JobRow>('SELECT * FROM jobs WHERE id = ? AND tenant_id = ?'),
      list: db.prepare<[string, string | null, string | null, number], JobRow>('SELECT * FROM jobs WHERE tenant_id = ? AND (? IS NULL OR owner_user_id = ?) ORDER BY created_at DESC, id DESC LIMIT ?'),
      cancel: db.prepare<[string, string, string]>(`UPDATE jobs SET status = 'cancelled', error = 'cancelled by an admin', updated_at = ? WHERE id = ? AND tenant_id = ? AND status = 'running'`),
      settleBatch: db.prepare<[string, string]>(`UPDATE documents SET status = 'indexed', updated_at = ? WHERE batch_id = ? AND status = 'indexing'`),
      batchKept: db.prepare<[string], { documents: number; chunks: number | null; embedded: number | null }>('SELECT count(*) AS documents, sum(chunks_indexed) AS chunks, sum(chunks_embedded) AS embedded FROM documents WHERE batch_id = ?'),
      failRunning: db.prepare<[string]>(`UPDATE jobs SET status = 'failed', error = 'interrupted by a restart', updated_at = ? WHERE status = 'running'`),
    };
  }

  create(id: string, tenantId: string, kind: string, owner: string, total: number, now: string): void { this.q.insert.run(id, tenantId, kind, owner, total, now, now); }
  progress(id: string, done: number, total: number, status: string, error: string | null, now: string): void { this.q.progress.run(done, total, status, error, now, id); }
  get(tenantId: string, id: string): JobRow | null { return this.q.get.get(id, tenantId) ?? null; }
  list(tenantId: string, owner: string | null, limit: number): JobRow[] { return this.q.list.all(tenantId, owner, owner, limit); }
  failInterrupted(now: string): void { this.q.failRunning.run(now); }
  cancelBatch(tenantId: string, id: string, now: string): { documents: number; chunks: number; embedded: number } | null {
    if (this.q.cancel.run(now, id, tenantId).changes === 0) return null;
    this.q.settleBatch.run(now, id);
    const k = this.q.batchKept.get(id)!;
    return { documents: k.documents, chunks: k.chunks ?? 0, embedded: k.embedded ?? 0 };
  }
}
