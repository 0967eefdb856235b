/** `wiki_pages` (tags, audiences and grants as JSON arrays): SQLite implementation of `WikiStore`. */
import type { Db } from '../../../shared/db/open.js';
import type { WikiRow, WikiStore } from '../domain/ports.js';

type Raw = Omit<WikiRow, 'tags' | 'audience_tags' | 'user_grants'> & { tags: string; audience_tags: string; user_grants: string };

function parse(r: Raw): WikiRow {
  return { ...r, tags: JSON.parse(r.tags) as string[], audience_tags: JSON.parse(r.audience_tags) as string[], user_grants: JSON.parse(r.user_grants) as string[] };
}

/** SQLite implementation of `WikiStore`. */
export class SqliteWikiStore implements WikiStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      get: db.prepare<[string, string], Raw>('SELECT * FROM wiki_pages WHERE tenant_id = ? AND topic = ?'),
      list: db.prepare<[string], Raw>('SELECT * FROM wiki_pages WHERE tenant_id = ? ORDER BY topic'),
      upsert: db.prepare<Raw>(`INSERT INTO wiki_pages (tenant_id, topic, title, summary, tags, content, owner_user_id, visibility_mode, audience_tags, user_grants, created_by, updated_by, created_at, updated_at)
        VALUES (@tenant_id, @topic, @title, @summary, @tags, @content, @owner_user_id, @visibility_mode, @audience_tags, @user_grants, @created_by, @updated_by, @created_at, @updated_at)
        ON CONFLICT (tenant_id, topic) DO UPDATE SET title = excluded.title, summary = excluded.summary, tags = excluded.tags, content = excluded.content,
          visibility_mode = excluded.visibility_mode, audience_tags = excluded.audience_tags, user_grants = excluded.user_grants,
          updated_by = excluded.updated_by, updated_at = excluded.updated_at`),
      delete: db.prepare<[string, string]>('DELETE FROM wiki_pages WHERE tenant_id = ? AND topic = ?'),
    };
  }

  get(tenantId: string, topic: string): WikiRow | null {
    const r = this.q.get.get(tenantId, topic);
    return r ? parse(r) : null;
  }
  list(tenantId: string): WikiRow[] { return this.q.list.all(tenantId).map(parse); }
  upsert(w: WikiRow): void {
    this.q.upsert.run({ ...w, tags: JSON.stringify(w.tags), audience_tags: JSON.stringify(w.audience_tags), user_grants: JSON.stringify(w.user_grants) });
  }
  delete(tenantId: string, topic: string): boolean { return this.q.delete.run(tenantId, topic).changes > 0; }
}
