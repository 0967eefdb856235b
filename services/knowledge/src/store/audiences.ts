/** `audiences` and `audience_members` (tenant-local groups): SQLite implementation of `AudienceStore`. */
import type { Db } from '../../../shared/db/open.js';
import type { AudienceRow, AudienceStore } from '../domain/ports.js';

/** SQLite implementation of `AudienceStore`. */
export class SqliteAudienceStore implements AudienceStore {
  private readonly q;

  constructor(private readonly db: Db) {
    this.q = {
      list: db.prepare<[string], AudienceRow>(`SELECT a.tag, a.description, a.created_at, a.updated_at,
        (SELECT count(*) FROM audience_members m WHERE m.tenant_id = a.tenant_id AND m.tag = a.tag) AS member_count
        FROM audiences a WHERE a.tenant_id = ? ORDER BY a.tag`),
      get: db.prepare<[string, string], Omit<AudienceRow, 'member_count'>>('SELECT tag, description, created_at, updated_at FROM audiences WHERE tenant_id = ? AND tag = ?'),
      upsert: db.prepare<{ tenant: string; tag: string; description: string | null; now: string }>(`INSERT INTO audiences (tenant_id, tag, description, created_at, updated_at) VALUES (@tenant, @tag, @description, @now, @now)
        ON CONFLICT (tenant_id, tag) DO UPDATE SET description = COALESCE(excluded.description, audiences.description), updated_at = excluded.updated_at`),
      ensure: db.prepare<[string, string, string, string]>('INSERT OR IGNORE INTO audiences (tenant_id, tag, description, created_at, updated_at) VALUES (?, ?, NULL, ?, ?)'),
      clearMembers: db.prepare<[string, string]>('DELETE FROM audience_members WHERE tenant_id = ? AND tag = ?'),
      addMember: db.prepare<[string, string, string]>('INSERT OR IGNORE INTO audience_members (tenant_id, tag, user_id) VALUES (?, ?, ?)'),
      membersOf: db.prepare<[string, string], { user_id: string }>('SELECT user_id FROM audience_members WHERE tenant_id = ? AND tag = ? ORDER BY user_id'),
      ofUser: db.prepare<[string, string], { tag: string }>('SELECT tag FROM audience_members WHERE tenant_id = ? AND user_id = ?'),
    };
  }

  list(tenantId: string): AudienceRow[] { return this.q.list.all(tenantId); }
  get(tenantId: string, tag: string): Omit<AudienceRow, 'member_count'> | null { return this.q.get.get(tenantId, tag) ?? null; }
  upsert(tenantId: string, tag: string, description: string | null, now: string): void { this.q.upsert.run({ tenant: tenantId, tag, description, now }); }
  ensure(tenantId: string, tags: string[], now: string): void { for (const t of tags) this.q.ensure.run(tenantId, t, now, now); }
  setMembers(tenantId: string, tag: string, userIds: string[]): void {
    this.db.transaction(() => { this.q.clearMembers.run(tenantId, tag); for (const u of userIds) this.q.addMember.run(tenantId, tag, u); })();
  }
  membersOf(tenantId: string, tag: string): string[] { return this.q.membersOf.all(tenantId, tag).map((r) => r.user_id); }
  ofUser(tenantId: string, userId: string): string[] { return this.q.ofUser.all(tenantId, userId).map((r) => r.tag); }
}
