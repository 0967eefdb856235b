/**
 * `documents`, `document_audiences` and `document_grants` on PostgreSQL (issue 21 item 1): the part
 * of the document store retrieval needs so far (insert with governance rows, get, archive, delete).
 * The list, governance changes, batch progress and content paths stay SQLite-only until the domain
 * takes async ports (docs/scale-out.md).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { AsyncDocumentWrites } from '../../domain/async-ports.js';
import type { DocumentRow, NewDocument } from '../../domain/ports.js';

/** PostgreSQL implementation of the document writes retrieval needs. */
export class PgDocumentStore implements AsyncDocumentWrites {
  constructor(private readonly db: PgDb) {}

  insert(d: NewDocument): Promise<void> {
    return this.db.tx(async () => {
      await this.db.exec(`INSERT INTO documents (id, tenant_id, title, source_type, filename, mime_type, bytes, object_sha256, owner_user_id, creator_user_id,
        visibility_mode, tags, metadata, status, batch_id, created_at, updated_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13::jsonb, 'indexing', $14, $15, $15)`, [
        d.id, d.tenant_id, d.title, d.source_type, d.filename, d.mime_type, d.bytes, d.object_sha256, d.owner_user_id, d.creator_user_id,
        d.visibility_mode, JSON.stringify(d.tags), JSON.stringify(d.metadata), d.batch_id, d.now,
      ]);
      if (d.audience_tags.length) await this.db.exec('INSERT INTO document_audiences (document_id, audience_tag) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING', [d.id, d.audience_tags]);
      if (d.user_grants.length) await this.db.exec('INSERT INTO document_grants (document_id, user_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING', [d.id, d.user_grants]);
    });
  }

  /** Record the indexing outcome's counters (what `DocumentStore.setIndexed` sets, without the content). */
  async setCounts(id: string, chunks: number, now: string): Promise<void> {
    await this.db.exec('UPDATE documents SET chunks_indexed = $2, updated_at = $3 WHERE id = $1', [id, chunks, now]);
  }

  async get(tenantId: string, id: string): Promise<DocumentRow | null> {
    const [r] = await this.db.query<DocumentRow>(`SELECT d.id, d.tenant_id, d.title, d.source_type, d.filename, d.mime_type, d.bytes, d.object_sha256,
      d.owner_user_id, d.creator_user_id, d.visibility_mode, d.tags, d.metadata, d.status, d.chunks_indexed, d.chunks_embedded, d.last_error,
      d.archived_at, d.batch_id, d.created_at, d.updated_at,
      coalesce((SELECT array_agg(audience_tag ORDER BY audience_tag) FROM document_audiences WHERE document_id = d.id), '{}') AS audience_tags,
      coalesce((SELECT array_agg(user_id ORDER BY user_id) FROM document_grants WHERE document_id = d.id), '{}') AS user_grants
      FROM documents d WHERE d.id = $1 AND d.tenant_id = $2`, [id, tenantId]);
    return r ?? null;
  }

  async setArchived(id: string, at: string | null, now: string): Promise<void> {
    await this.db.exec('UPDATE documents SET archived_at = $2, updated_at = $3 WHERE id = $1', [id, at, now]);
  }

  async delete(id: string): Promise<void> {
    await this.db.exec('DELETE FROM documents WHERE id = $1', [id]);
  }
}
