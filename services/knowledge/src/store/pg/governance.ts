/**
 * Audiences, wiki pages, jobs and permission profiles of knowledge on PostgreSQL (issue 21 item 1):
 * the `AudienceStore`, `WikiStore`, `JobStore` and `AccessProfileStore` of ../audiences.ts,
 * ../wiki.ts, ../jobs.ts and ../access-profiles.ts with the same answers. JSON lists are jsonb
 * (parsed by the driver); text order is `COLLATE "C"` (SQLite's BINARY); `INSERT OR IGNORE` is
 * `ON CONFLICT DO NOTHING`; multi-statement writes run in one transaction (a savepoint inside the caller's).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type {
  AccessProfileRow, AccessProfileStore, AudienceRow, AudienceStore, JobRow, JobStore, WikiRow, WikiStore,
} from '../../domain/ports.js';

/** A jsonb list column as strings (anything else: empty), as ../access-profiles.ts reads its JSON text. */
function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** PostgreSQL implementation of `AudienceStore`. */
export class PgAudienceStore implements AudienceStore {
  constructor(private readonly db: PgDb) {}

  list(tenantId: string): Promise<AudienceRow[]> {
    return this.db.query<AudienceRow>(`SELECT a.tag, a.description, a.created_at, a.updated_at,
      (SELECT count(*) FROM audience_members m WHERE m.tenant_id = a.tenant_id AND m.tag = a.tag) AS member_count
      FROM audiences a WHERE a.tenant_id = $1 ORDER BY a.tag COLLATE "C"`, [tenantId]);
  }

  async get(tenantId: string, tag: string): Promise<Omit<AudienceRow, 'member_count'> | null> {
    const [r] = await this.db.query<Omit<AudienceRow, 'member_count'>>('SELECT tag, description, created_at, updated_at FROM audiences WHERE tenant_id = $1 AND tag = $2', [tenantId, tag]);
    return r ?? null;
  }

  async upsert(tenantId: string, tag: string, description: string | null, now: string): Promise<void> {
    await this.db.exec(`INSERT INTO audiences (tenant_id, tag, description, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
      ON CONFLICT (tenant_id, tag) DO UPDATE SET description = COALESCE(excluded.description, audiences.description), updated_at = excluded.updated_at`,
    [tenantId, tag, description, now]);
  }

  async ensure(tenantId: string, tags: string[], now: string): Promise<void> {
    if (!tags.length) return;
    await this.db.exec(`INSERT INTO audiences (tenant_id, tag, description, created_at, updated_at)
      SELECT $1, t, NULL, $3, $3 FROM unnest($2::text[]) t ON CONFLICT DO NOTHING`, [tenantId, tags, now]);
  }

  setMembers(tenantId: string, tag: string, userIds: string[]): Promise<void> {
    return this.db.tx(async () => {
      await this.db.exec('DELETE FROM audience_members WHERE tenant_id = $1 AND tag = $2', [tenantId, tag]);
      if (userIds.length) {
        await this.db.exec('INSERT INTO audience_members (tenant_id, tag, user_id) SELECT $1, $2, u FROM unnest($3::text[]) u ON CONFLICT DO NOTHING', [tenantId, tag, userIds]);
      }
    });
  }

  async membersOf(tenantId: string, tag: string): Promise<string[]> {
    const rows = await this.db.query<{ user_id: string }>('SELECT user_id FROM audience_members WHERE tenant_id = $1 AND tag = $2 ORDER BY user_id COLLATE "C"', [tenantId, tag]);
    return rows.map((r) => r.user_id);
  }

  /** Order as SQLite's scan of the (tenant_id, user_id) index gives it: by tag. */
  async ofUser(tenantId: string, userId: string): Promise<string[]> {
    const rows = await this.db.query<{ tag: string }>('SELECT tag FROM audience_members WHERE tenant_id = $1 AND user_id = $2 ORDER BY tag COLLATE "C"', [tenantId, userId]);
    return rows.map((r) => r.tag);
  }
}

/** PostgreSQL implementation of `WikiStore`. */
export class PgWikiStore implements WikiStore {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string, topic: string): Promise<WikiRow | null> {
    const [r] = await this.db.query<WikiRow>('SELECT * FROM wiki_pages WHERE tenant_id = $1 AND topic = $2', [tenantId, topic]);
    return r ?? null;
  }

  list(tenantId: string): Promise<WikiRow[]> {
    return this.db.query<WikiRow>('SELECT * FROM wiki_pages WHERE tenant_id = $1 ORDER BY topic COLLATE "C"', [tenantId]);
  }

  async upsert(w: WikiRow): Promise<void> {
    await this.db.exec(`INSERT INTO wiki_pages (tenant_id, topic, title, summary, tags, content, owner_user_id, visibility_mode, audience_tags, user_grants,
      created_by, updated_by, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9::jsonb, $10::jsonb, $11, $12, $13, $14)
      ON CONFLICT (tenant_id, topic) DO UPDATE SET title = excluded.title, summary = excluded.summary, tags = excluded.tags, content = excluded.content,
        visibility_mode = excluded.visibility_mode, audience_tags = excluded.audience_tags, user_grants = excluded.user_grants,
        updated_by = excluded.updated_by, updated_at = excluded.updated_at`, [
      w.tenant_id, w.topic, w.title, w.summary, JSON.stringify(w.tags), w.content, w.owner_user_id, w.visibility_mode,
      JSON.stringify(w.audience_tags), JSON.stringify(w.user_grants), w.created_by, w.updated_by, w.created_at, w.updated_at,
    ]);
  }

  async delete(tenantId: string, topic: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM wiki_pages WHERE tenant_id = $1 AND topic = $2', [tenantId, topic])) > 0;
  }
}

/** PostgreSQL implementation of `JobStore`. */
export class PgJobStore implements JobStore {
  constructor(private readonly db: PgDb) {}

  async create(id: string, tenantId: string, kind: string, owner: string, total: number, now: string): Promise<void> {
    await this.db.exec(`INSERT INTO jobs (id, tenant_id, kind, status, owner_user_id, total, done, created_at, updated_at) VALUES ($1, $2, $3, 'running', $4, $5, 0, $6, $6)`,
      [id, tenantId, kind, owner, total, now]);
  }

  async progress(id: string, done: number, total: number, status: string, error: string | null, now: string): Promise<void> {
    await this.db.exec('UPDATE jobs SET done = $2, total = $3, status = $4, error = $5, updated_at = $6 WHERE id = $1', [id, done, total, status, error, now]);
  }

  async get(tenantId: string, id: string): Promise<JobRow | null> {
    const [r] = await this.db.query<JobRow>('SELECT * FROM jobs WHERE id = $1 AND tenant_id = $2', [id, tenantId]);
    return r ?? null;
  }

  list(tenantId: string, owner: string | null, limit: number): Promise<JobRow[]> {
    return this.db.query<JobRow>(`SELECT * FROM jobs WHERE tenant_id = $1 AND ($2::text IS NULL OR owner_user_id = $2)
      ORDER BY created_at COLLATE "C" DESC, id COLLATE "C" DESC LIMIT $3`, [tenantId, owner, limit]);
  }

  async failInterrupted(now: string): Promise<void> {
    await this.db.exec(`UPDATE jobs SET status = 'failed', error = 'interrupted by a restart', updated_at = $1 WHERE status = 'running'`, [now]);
  }

  cancelBatch(tenantId: string, id: string, now: string): Promise<{ documents: number; chunks: number; embedded: number } | null> {
    return this.db.tx(async () => {
      const n = await this.db.exec(`UPDATE jobs SET status = 'cancelled', error = 'cancelled by an admin', updated_at = $1 WHERE id = $2 AND tenant_id = $3 AND status = 'running'`, [now, id, tenantId]);
      if (n === 0) return null;
      await this.db.exec(`UPDATE documents SET status = 'indexed', updated_at = $1 WHERE batch_id = $2 AND status = 'indexing'`, [now, id]);
      const [k] = await this.db.query<{ documents: number; chunks: number; embedded: number }>(
        'SELECT count(*) AS documents, coalesce(sum(chunks_indexed), 0) AS chunks, coalesce(sum(chunks_embedded), 0) AS embedded FROM documents WHERE batch_id = $1', [id]);
      return { documents: k!.documents, chunks: k!.chunks, embedded: k!.embedded };
    });
  }
}

/** PostgreSQL implementation of `AccessProfileStore`. */
export class PgAccessProfileStore implements AccessProfileStore {
  constructor(private readonly db: PgDb) {}

  async list(tenantId: string): Promise<AccessProfileRow[]> {
    const rows = await this.db.query<{ id: string; roles: unknown; groups_json: unknown; audiences: unknown; tags: unknown }>(
      'SELECT id, roles, groups_json, audiences, tags FROM access_profiles WHERE tenant_id = $1 ORDER BY id COLLATE "C"', [tenantId]);
    return rows.map((r) => ({ id: r.id, roles: strings(r.roles), groups: strings(r.groups_json), knowledge: { audiences: strings(r.audiences), tags: strings(r.tags) } }));
  }

  replace(tenantId: string, rows: readonly AccessProfileRow[], at: string): Promise<void> {
    return this.db.tx(async () => {
      await this.db.exec('DELETE FROM access_profiles WHERE tenant_id = $1', [tenantId]);
      for (const r of rows) {
        await this.db.exec('INSERT INTO access_profiles (tenant_id, id, roles, groups_json, audiences, tags) VALUES ($1, $2, $3::jsonb, $4::jsonb, $5::jsonb, $6::jsonb)', [
          tenantId, r.id, JSON.stringify(r.roles), JSON.stringify(r.groups), JSON.stringify(r.knowledge.audiences ?? []), JSON.stringify(r.knowledge.tags ?? []),
        ]);
      }
      await this.db.exec(`INSERT INTO access_profiles_sync (tenant_id, synced_at) VALUES ($1, $2)
        ON CONFLICT (tenant_id) DO UPDATE SET synced_at = excluded.synced_at`, [tenantId, at]);
    });
  }
}
