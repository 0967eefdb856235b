/**
 * `documents`, `document_audiences` and `document_grants` on PostgreSQL (issue 21 item 1): the
 * `DocumentStore` of ../documents.ts with the same answers. Tags and metadata are jsonb (parsed by
 * the driver); audiences and grants come back sorted as on SQLite (JavaScript's sort); text order
 * is `COLLATE "C"` (SQLite's BINARY). The title filter is `ILIKE` (SQLite's LIKE folds ASCII only:
 * the one difference, for non-ASCII letters of another case).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { AsyncDocumentWrites } from '../../domain/async-ports.js';
import type {
  BatchProgress, DocumentListQuery, DocumentRow, DocumentStore, GovernanceChange, IndexState, NewDocument, Viewer,
} from '../../domain/ports.js';
import { Params, pgVisible } from './visibility-sql.js';

const DOC_COLUMNS = `d.id, d.tenant_id, d.title, d.source_type, d.filename, d.mime_type, d.bytes, d.object_sha256,
  d.owner_user_id, d.creator_user_id, d.visibility_mode, d.tags, d.metadata, d.status, d.chunks_indexed, d.chunks_embedded, d.last_error,
  d.archived_at, d.batch_id, d.created_at, d.updated_at,
  coalesce((SELECT array_agg(audience_tag) FROM document_audiences WHERE document_id = d.id), '{}') AS audience_tags,
  coalesce((SELECT array_agg(user_id) FROM document_grants WHERE document_id = d.id), '{}') AS user_grants`;

/** A row as the driver gives it, with the governance lists sorted as SQLite's store sorts them. */
function parseDoc(r: DocumentRow): DocumentRow {
  return { ...r, audience_tags: [...r.audience_tags].sort(), user_grants: [...r.user_grants].sort() };
}

/** PostgreSQL implementation of `DocumentStore`. */
export class PgDocumentStore implements DocumentStore, AsyncDocumentWrites {
  constructor(private readonly db: PgDb) {}

  insert(d: NewDocument): Promise<void> {
    return this.db.tx(async () => {
      await this.db.exec(`INSERT INTO documents (id, tenant_id, title, source_type, filename, mime_type, bytes, object_sha256, owner_user_id, creator_user_id,
        visibility_mode, tags, metadata, status, batch_id, created_at, updated_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13::jsonb, 'indexing', $14, $15, $15)`, [
        d.id, d.tenant_id, d.title, d.source_type, d.filename, d.mime_type, d.bytes, d.object_sha256, d.owner_user_id, d.creator_user_id,
        d.visibility_mode, JSON.stringify(d.tags), JSON.stringify(d.metadata), d.batch_id, d.now,
      ]);
      await this.writeGovernanceRows(d.id, d.audience_tags, d.user_grants);
    });
  }

  private async writeGovernanceRows(id: string, audiences: string[], grants: string[]): Promise<void> {
    if (audiences.length) await this.db.exec('INSERT INTO document_audiences (document_id, audience_tag) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING', [id, audiences]);
    if (grants.length) await this.db.exec('INSERT INTO document_grants (document_id, user_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING', [id, grants]);
  }

  /** Record the indexing outcome's counters (what `DocumentStore.setIndexed` sets, without the content). */
  async setCounts(id: string, chunks: number, now: string): Promise<void> {
    await this.db.exec('UPDATE documents SET chunks_indexed = $2, updated_at = $3 WHERE id = $1', [id, chunks, now]);
  }

  async get(tenantId: string, id: string): Promise<DocumentRow | null> {
    const [r] = await this.db.query<DocumentRow>(`SELECT ${DOC_COLUMNS} FROM documents d WHERE d.id = $1 AND d.tenant_id = $2`, [id, tenantId]);
    return r ? parseDoc(r) : null;
  }

  async getVisible(viewer: Viewer, id: string): Promise<DocumentRow | null> {
    const ps = new Params([id, viewer.tenantId]);
    const [r] = await this.db.query<DocumentRow>(`SELECT ${DOC_COLUMNS} FROM documents d WHERE d.id = $1 AND d.tenant_id = $2 AND ${pgVisible(viewer, ps)}`, ps.values);
    return r ? parseDoc(r) : null;
  }

  /** Keyset-paginated on (created_at, id), newest first; filters archived (include / only), status, title substring. */
  async list(viewer: Viewer, opts: DocumentListQuery): Promise<DocumentRow[]> {
    const ps = new Params([viewer.tenantId]);
    const where = ['d.tenant_id = $1', pgVisible(viewer, ps)];
    if (opts.archived === 'exclude') where.push('d.archived_at IS NULL');
    if (opts.archived === 'only') where.push('d.archived_at IS NOT NULL');
    if (opts.status) where.push(`d.status = ${ps.add(opts.status)}`);
    if (opts.q) where.push(`d.title ILIKE ${ps.add(`%${opts.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)} ESCAPE '\\'`);
    if (opts.cursor) {
      const cat = ps.add(opts.cursor.created_at);
      where.push(`(d.created_at COLLATE "C" < ${cat} OR (d.created_at = ${cat} AND d.id COLLATE "C" < ${ps.add(opts.cursor.id)}))`);
    }
    const sql = `SELECT ${DOC_COLUMNS} FROM documents d WHERE ${where.join(' AND ')}
      ORDER BY d.created_at COLLATE "C" DESC, d.id COLLATE "C" DESC LIMIT ${ps.add(opts.limit)}`;
    return (await this.db.query<DocumentRow>(sql, ps.values)).map(parseDoc);
  }

  async contentOf(id: string): Promise<string | null> {
    const [r] = await this.db.query<{ content: string | null }>('SELECT content FROM documents WHERE id = $1', [id]);
    return r?.content ?? null;
  }

  async setIndexed(id: string, s: IndexState, now: string): Promise<void> {
    await this.db.exec(`UPDATE documents SET status = $2, chunks_indexed = $3, chunks_embedded = $4, last_error = $5, content = COALESCE($6, content), updated_at = $7
      WHERE id = $1`, [id, s.status, s.chunks, s.embedded, s.error, s.content, now]);
  }

  async setTitle(id: string, title: string): Promise<void> {
    await this.db.exec('UPDATE documents SET title = $2 WHERE id = $1', [id, title]);
  }

  async setFailed(id: string, error: string, now: string): Promise<void> {
    await this.db.exec(`UPDATE documents SET status = 'failed', last_error = $2, updated_at = $3 WHERE id = $1`, [id, error, now]);
  }

  async setArchived(id: string, at: string | null, now: string): Promise<void> {
    await this.db.exec('UPDATE documents SET archived_at = $2, updated_at = $3 WHERE id = $1', [id, at, now]);
  }

  /** Row, audiences and grants in one transaction (a savepoint inside the caller's). */
  setGovernance(id: string, g: GovernanceChange, now: string): Promise<void> {
    return this.db.tx(async () => {
      await this.db.exec('UPDATE documents SET visibility_mode = $2, owner_user_id = $3, title = $4, updated_at = $5 WHERE id = $1', [id, g.visibility, g.owner, g.title, now]);
      await this.db.exec('DELETE FROM document_audiences WHERE document_id = $1', [id]);
      await this.db.exec('DELETE FROM document_grants WHERE document_id = $1', [id]);
      await this.writeGovernanceRows(id, g.audiences, g.grants);
    });
  }

  async delete(id: string): Promise<void> {
    await this.db.exec('DELETE FROM documents WHERE id = $1', [id]);
  }

  async batchProgress(batchId: string): Promise<BatchProgress> {
    const [r] = await this.db.query<BatchProgress>(`SELECT count(*) AS documents, count(*) FILTER (WHERE status = 'indexed') AS indexed,
      count(*) FILTER (WHERE status = 'failed') AS failed, coalesce(sum(chunks_indexed), 0) AS chunks, coalesce(sum(chunks_embedded), 0) AS embedded
      FROM documents WHERE batch_id = $1`, [batchId]);
    return r!;
  }

  async awaitingParse(tenantId: string): Promise<DocumentRow[]> {
    return (await this.db.query<DocumentRow>(`SELECT ${DOC_COLUMNS} FROM documents d
      WHERE d.tenant_id = $1 AND d.status = 'indexing' AND d.chunks_indexed = 0 AND d.source_type IN ('file', 'text')
      ORDER BY d.created_at COLLATE "C", d.id COLLATE "C"`, [tenantId])).map(parseDoc);
  }
}
