/**
 * `documents`, `document_audiences` and `document_grants` (migrations/knowledge/0001_init.sql):
 * SQLite implementation of `DocumentStore`. Audiences and grants come back sorted.
 */
import type { Db } from '../../../shared/db/open.js';
import type {
  BatchProgress, DocumentListQuery, DocumentRow, DocumentStore, GovernanceChange, IndexState, NewDocument, Viewer,
} from '../domain/ports.js';
import { VISIBLE, viewerParams } from './visibility-sql.js';

type RawDoc = Omit<DocumentRow, 'tags' | 'metadata' | 'audience_tags' | 'user_grants'> & { tags: string; metadata: string; audience_tags: string | null; user_grants: string | null };

const DOC_COLUMNS = `d.id, d.tenant_id, d.title, d.source_type, d.filename, d.mime_type, d.bytes, d.object_sha256, d.owner_user_id, d.creator_user_id,
  d.visibility_mode, d.tags, d.metadata, d.status, d.chunks_indexed, d.chunks_embedded, d.last_error, d.archived_at, d.batch_id, d.created_at, d.updated_at,
  (SELECT json_group_array(audience_tag) FROM document_audiences WHERE document_id = d.id) AS audience_tags,
  (SELECT json_group_array(user_id) FROM document_grants WHERE document_id = d.id) AS user_grants`;

function parseDoc(r: RawDoc): DocumentRow {
  return {
    ...r,
    tags: JSON.parse(r.tags) as string[],
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
    audience_tags: r.audience_tags ? (JSON.parse(r.audience_tags) as string[]).sort() : [],
    user_grants: r.user_grants ? (JSON.parse(r.user_grants) as string[]).sort() : [],
  };
}

/** SQLite implementation of `DocumentStore`. */
export class SqliteDocumentStore implements DocumentStore {
  private readonly q;

  constructor(private readonly db: Db) {
    this.q = {
      insert: db.prepare(`INSERT INTO documents (id, tenant_id, title, source_type, filename, mime_type, bytes, object_sha256, owner_user_id, creator_user_id,
        visibility_mode, tags, metadata, status, batch_id, created_at, updated_at)
        VALUES (@id, @tenant_id, @title, @source_type, @filename, @mime_type, @bytes, @object_sha256, @owner_user_id, @creator_user_id,
        @visibility_mode, @tags, @metadata, 'indexing', @batch_id, @now, @now)`),
      insertAudience: db.prepare<[string, string]>('INSERT OR IGNORE INTO document_audiences (document_id, audience_tag) VALUES (?, ?)'),
      insertGrant: db.prepare<[string, string]>('INSERT OR IGNORE INTO document_grants (document_id, user_id) VALUES (?, ?)'),
      clearAudiences: db.prepare<[string]>('DELETE FROM document_audiences WHERE document_id = ?'),
      clearGrants: db.prepare<[string]>('DELETE FROM document_grants WHERE document_id = ?'),
      setIndexed: db.prepare(`UPDATE documents SET status = @status, chunks_indexed = @chunks, chunks_embedded = @embedded, last_error = @error, content = COALESCE(@content, content), updated_at = @now WHERE id = @id`),
      setTitle: db.prepare<[string, string]>('UPDATE documents SET title = ? WHERE id = ?'),
      setFailed: db.prepare<[string, string, string]>(`UPDATE documents SET status = 'failed', last_error = ?, updated_at = ? WHERE id = ?`),
      setArchived: db.prepare<[string | null, string, string]>('UPDATE documents SET archived_at = ?, updated_at = ? WHERE id = ?'),
      setGovernance: db.prepare('UPDATE documents SET visibility_mode = @visibility, owner_user_id = @owner, title = @title, updated_at = @now WHERE id = @id'),
      get: db.prepare<{ id: string; tenant: string }, RawDoc>(`SELECT ${DOC_COLUMNS} FROM documents d WHERE d.id = @id AND d.tenant_id = @tenant`),
      getVisible: db.prepare<Record<string, unknown>, RawDoc>(`SELECT ${DOC_COLUMNS} FROM documents d WHERE d.id = @id AND d.tenant_id = @tenant AND ${VISIBLE}`),
      contentOf: db.prepare<[string], { content: string | null }>('SELECT content FROM documents WHERE id = ?'),
      delete: db.prepare<[string]>('DELETE FROM documents WHERE id = ?'),
      batchProgress: db.prepare<[string], BatchProgress>(`SELECT count(*) AS documents, coalesce(sum(status = 'indexed'), 0) AS indexed, coalesce(sum(status = 'failed'), 0) AS failed,
        coalesce(sum(chunks_indexed), 0) AS chunks, coalesce(sum(chunks_embedded), 0) AS embedded FROM documents WHERE batch_id = ?`),
      awaitingParse: db.prepare<[string], RawDoc>(`SELECT ${DOC_COLUMNS} FROM documents d
        WHERE d.tenant_id = ? AND d.status = 'indexing' AND d.chunks_indexed = 0 AND d.source_type IN ('file', 'text') ORDER BY d.created_at, d.id`),
    };
  }

  insert(d: NewDocument): void {
    this.q.insert.run({ ...d, tags: JSON.stringify(d.tags), metadata: JSON.stringify(d.metadata) });
    for (const t of d.audience_tags) this.q.insertAudience.run(d.id, t);
    for (const u of d.user_grants) this.q.insertGrant.run(d.id, u);
  }

  get(tenantId: string, id: string): DocumentRow | null {
    const r = this.q.get.get({ id, tenant: tenantId });
    return r ? parseDoc(r) : null;
  }

  getVisible(viewer: Viewer, id: string): DocumentRow | null {
    const r = this.q.getVisible.get({ id, ...viewerParams(viewer) });
    return r ? parseDoc(r) : null;
  }

  /** Keyset-paginated on (created_at, id), newest first; filters archived (include / only), status, title substring. */
  list(viewer: Viewer, opts: DocumentListQuery): DocumentRow[] {
    const where = ['d.tenant_id = @tenant', VISIBLE];
    const params: Record<string, unknown> = { ...viewerParams(viewer), limit: opts.limit };
    if (opts.archived === 'exclude') where.push('d.archived_at IS NULL');
    if (opts.archived === 'only') where.push('d.archived_at IS NOT NULL');
    if (opts.status) { where.push('d.status = @status'); params.status = opts.status; }
    if (opts.q) { where.push("d.title LIKE @q ESCAPE '\\'"); params.q = `%${opts.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`; }
    if (opts.cursor) { where.push('(d.created_at < @cat OR (d.created_at = @cat AND d.id < @cid))'); params.cat = opts.cursor.created_at; params.cid = opts.cursor.id; }
    const sql = `SELECT ${DOC_COLUMNS} FROM documents d WHERE ${where.join(' AND ')} ORDER BY d.created_at DESC, d.id DESC LIMIT @limit`;
    return (this.db.prepare(sql).all(params) as RawDoc[]).map(parseDoc);
  }

  contentOf(id: string): string | null { return this.q.contentOf.get(id)?.content ?? null; }

  setIndexed(id: string, state: IndexState, now: string): void { this.q.setIndexed.run({ id, ...state, now }); }
  setTitle(id: string, title: string): void { this.q.setTitle.run(title, id); }
  setFailed(id: string, error: string, now: string): void { this.q.setFailed.run(error, now, id); }
  setArchived(id: string, at: string | null, now: string): void { this.q.setArchived.run(at, now, id); }

  /** Row, audiences and grants in one transaction (a savepoint inside the caller's). */
  setGovernance(id: string, g: GovernanceChange, now: string): void {
    this.db.transaction(() => {
      this.q.setGovernance.run({ id, visibility: g.visibility, owner: g.owner, title: g.title, now });
      this.q.clearAudiences.run(id);
      this.q.clearGrants.run(id);
      for (const t of g.audiences) this.q.insertAudience.run(id, t);
      for (const u of g.grants) this.q.insertGrant.run(id, u);
    })();
  }

  delete(id: string): void { this.q.delete.run(id); }

  batchProgress(batchId: string): BatchProgress { return this.q.batchProgress.get(batchId)!; }

  awaitingParse(tenantId: string): DocumentRow[] { return this.q.awaitingParse.all(tenantId).map(parseDoc); }
}
