/**
 * User profiles, profile drafts and dismissals over SQLite (tables `user_profiles`,
 * `profile_drafts`, `profile_dismissals`, migration 0003; issue 13 item 2). Statements are prepared once.
 */
import type { Db } from '../../../shared/db/open.js';
import type { DraftRow, ProfileRow, UserProfileStore } from '../domain/profile/ports.js';

/** `UserProfileStore` over one open database. */
export class SqliteUserProfileStore implements UserProfileStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      get: db.prepare<[string, string], ProfileRow>('SELECT * FROM user_profiles WHERE tenant_id = ? AND user_id = ?'),
      put: db.prepare(`INSERT INTO user_profiles (tenant_id, user_id, display_name, timezone, timezone_source, language, preferences, created_at, updated_at)
        VALUES (@tenant_id, @user_id, @display_name, @timezone, @timezone_source, @language, @preferences, @created_at, @updated_at)
        ON CONFLICT (tenant_id, user_id) DO UPDATE SET display_name = excluded.display_name, timezone = excluded.timezone,
          timezone_source = excluded.timezone_source, language = excluded.language, preferences = excluded.preferences, updated_at = excluded.updated_at`),
      // Only a timezone never set (no row, or no source) is seeded.
      seed: db.prepare(`INSERT INTO user_profiles (tenant_id, user_id, timezone, timezone_source, created_at) VALUES (?, ?, ?, 'header', ?)
        ON CONFLICT (tenant_id, user_id) DO UPDATE SET timezone = excluded.timezone, timezone_source = 'header' WHERE timezone_source IS NULL`),
      draft: db.prepare<[string, string], DraftRow>('SELECT * FROM profile_drafts WHERE tenant_id = ? AND user_id = ?'),
      putDraft: db.prepare(`INSERT INTO profile_drafts (tenant_id, user_id, id, changes, session_id, turn_id, created_at)
        VALUES (@tenant_id, @user_id, @id, @changes, @session_id, @turn_id, @created_at)
        ON CONFLICT (tenant_id, user_id) DO UPDATE SET id = excluded.id, changes = excluded.changes, session_id = excluded.session_id,
          turn_id = excluded.turn_id, created_at = excluded.created_at`),
      deleteDraft: db.prepare('DELETE FROM profile_drafts WHERE tenant_id = ? AND user_id = ?'),
      isDismissed: db.prepare<[string, string, string], { hash: string }>('SELECT hash FROM profile_dismissals WHERE tenant_id = ? AND user_id = ? AND hash = ?'),
      dismiss: db.prepare('INSERT INTO profile_dismissals (tenant_id, user_id, hash, dismissed_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING'),
    };
  }

  get(tenantId: string, userId: string): ProfileRow | undefined {
    return this.s.get.get(tenantId, userId);
  }

  put(row: ProfileRow): void {
    this.s.put.run(row);
  }

  seedTimezone(tenantId: string, userId: string, timezone: string, now: string): boolean {
    return this.s.seed.run(tenantId, userId, timezone, now).changes > 0;
  }

  draft(tenantId: string, userId: string): DraftRow | undefined {
    return this.s.draft.get(tenantId, userId);
  }

  putDraft(row: DraftRow): void {
    this.s.putDraft.run(row);
  }

  deleteDraft(tenantId: string, userId: string): boolean {
    return this.s.deleteDraft.run(tenantId, userId).changes > 0;
  }

  dismissed(tenantId: string, userId: string, hashes: readonly string[]): Set<string> {
    const out = new Set<string>();
    for (const h of hashes) if (this.s.isDismissed.get(tenantId, userId, h)) out.add(h);
    return out;
  }

  dismiss(tenantId: string, userId: string, hashes: readonly string[], at: string): void {
    this.db.transaction(() => { for (const h of hashes) this.s.dismiss.run(tenantId, userId, h, at); })();
  }
}
