/** `access_profiles` and `access_profiles_sync`: SQLite implementation of `AccessProfileStore` (issue 13 item 8). */
import type { Db } from '../../../shared/db/open.js';
import type { AccessProfileRow, AccessProfileStore } from '../domain/ports.js';

interface RawRow { id: string; roles: string; groups_json: string; audiences: string; tags: string }

/** A JSON list column (anything else: empty). */
function list(text: string): string[] {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch { return []; }
}

/** SQLite implementation of `AccessProfileStore`. */
export class SqliteAccessProfileStore implements AccessProfileStore {
  private readonly q;

  constructor(private readonly db: Db) {
    this.q = {
      list: db.prepare<[string], RawRow>('SELECT id, roles, groups_json, audiences, tags FROM access_profiles WHERE tenant_id = ? ORDER BY id'),
      clear: db.prepare<[string]>('DELETE FROM access_profiles WHERE tenant_id = ?'),
      insert: db.prepare<[string, string, string, string, string, string]>('INSERT INTO access_profiles (tenant_id, id, roles, groups_json, audiences, tags) VALUES (?, ?, ?, ?, ?, ?)'),
      synced: db.prepare<[string, string]>(`INSERT INTO access_profiles_sync (tenant_id, synced_at) VALUES (?, ?)
        ON CONFLICT (tenant_id) DO UPDATE SET synced_at = excluded.synced_at`),
    };
  }

  list(tenantId: string): AccessProfileRow[] {
    return this.q.list.all(tenantId).map((r) => ({
      id: r.id, roles: list(r.roles), groups: list(r.groups_json), knowledge: { audiences: list(r.audiences), tags: list(r.tags) },
    }));
  }

  replace(tenantId: string, rows: readonly AccessProfileRow[], at: string): void {
    this.db.transaction(() => {
      this.q.clear.run(tenantId);
      for (const r of rows) {
        this.q.insert.run(tenantId, r.id, JSON.stringify(r.roles), JSON.stringify(r.groups), JSON.stringify(r.knowledge.audiences ?? []), JSON.stringify(r.knowledge.tags ?? []));
      }
      this.q.synced.run(tenantId, at);
    })();
  }
}
