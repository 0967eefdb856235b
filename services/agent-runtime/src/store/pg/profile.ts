/**
 * User profiles, drafts, dismissals and secrets on PostgreSQL (issue 21 item 1; tables
 * `user_profiles`, `profile_drafts`, `profile_dismissals`, `secrets` of
 * migrations/agent-runtime/pg/0001_core.sql): the twins of store/profile.ts and store/secrets.ts.
 * Secret rows hold ciphertext, IV and tag (BYTEA) only.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { DraftRow, ProfileRow, UserProfileStore } from '../../domain/profile/ports.js';
import type { SecretRow, SecretStore } from '../../domain/secrets.js';

const PROFILE_COLS = 'tenant_id, user_id, display_name, timezone, timezone_source, language, preferences, created_at, updated_at';
const DRAFT_COLS = 'tenant_id, user_id, id, changes, session_id, turn_id, created_at';
const SECRET_COLS = 'tenant_id, user_id, name, description, key_id, iv, tag, ciphertext, created_at, updated_at';

/** `UserProfileStore` on one schema. */
export class PgUserProfileStore implements UserProfileStore {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string, userId: string): Promise<ProfileRow | undefined> {
    const [r] = await this.db.query<ProfileRow>(`SELECT ${PROFILE_COLS} FROM user_profiles WHERE tenant_id = $1 AND user_id = $2`, [tenantId, userId]);
    return r;
  }

  async put(r: ProfileRow): Promise<void> {
    await this.db.exec(`INSERT INTO user_profiles (${PROFILE_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
      ON CONFLICT (tenant_id, user_id) DO UPDATE SET display_name = excluded.display_name, timezone = excluded.timezone,
        timezone_source = excluded.timezone_source, language = excluded.language, preferences = excluded.preferences, updated_at = excluded.updated_at`,
    [r.tenant_id, r.user_id, r.display_name, r.timezone, r.timezone_source, r.language, r.preferences, r.created_at, r.updated_at]);
  }

  async seedTimezone(tenantId: string, userId: string, timezone: string, now: string): Promise<boolean> {
    // Only a timezone never set (no row, or no source) is seeded.
    return (await this.db.exec(`INSERT INTO user_profiles AS p (tenant_id, user_id, timezone, timezone_source, created_at) VALUES ($1, $2, $3, 'header', $4)
      ON CONFLICT (tenant_id, user_id) DO UPDATE SET timezone = excluded.timezone, timezone_source = 'header' WHERE p.timezone_source IS NULL`,
    [tenantId, userId, timezone, now])) > 0;
  }

  async draft(tenantId: string, userId: string): Promise<DraftRow | undefined> {
    const [r] = await this.db.query<DraftRow>(`SELECT ${DRAFT_COLS} FROM profile_drafts WHERE tenant_id = $1 AND user_id = $2`, [tenantId, userId]);
    return r;
  }

  async putDraft(r: DraftRow): Promise<void> {
    await this.db.exec(`INSERT INTO profile_drafts (${DRAFT_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
      ON CONFLICT (tenant_id, user_id) DO UPDATE SET id = excluded.id, changes = excluded.changes, session_id = excluded.session_id,
        turn_id = excluded.turn_id, created_at = excluded.created_at`, [r.tenant_id, r.user_id, r.id, r.changes, r.session_id, r.turn_id, r.created_at]);
  }

  async deleteDraft(tenantId: string, userId: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM profile_drafts WHERE tenant_id = $1 AND user_id = $2', [tenantId, userId])) > 0;
  }

  async dismissed(tenantId: string, userId: string, hashes: readonly string[]): Promise<Set<string>> {
    if (hashes.length === 0) return new Set();
    const rows = await this.db.query<{ hash: string }>('SELECT hash FROM profile_dismissals WHERE tenant_id = $1 AND user_id = $2 AND hash = ANY($3::text[])',
      [tenantId, userId, [...hashes]]);
    const found = new Set(rows.map((r) => r.hash));
    // In the order of `hashes`, as SQLite answers.
    return new Set(hashes.filter((h) => found.has(h)));
  }

  async dismiss(tenantId: string, userId: string, hashes: readonly string[], at: string): Promise<void> {
    if (hashes.length === 0) return;
    await this.db.exec(`INSERT INTO profile_dismissals (tenant_id, user_id, hash, dismissed_at) SELECT $1, $2, h, $4 FROM unnest($3::text[]) AS h
      ON CONFLICT DO NOTHING`, [tenantId, userId, [...hashes], at]);
  }
}

/** `SecretStore` on one schema. */
export class PgSecretStore implements SecretStore {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string, userId: string, name: string): Promise<SecretRow | undefined> {
    const [r] = await this.db.query<SecretRow>(`SELECT ${SECRET_COLS} FROM secrets WHERE tenant_id = $1 AND user_id = $2 AND name = $3`, [tenantId, userId, name]);
    return r;
  }

  async list(tenantId: string, userId: string): Promise<SecretRow[]> {
    return this.db.query<SecretRow>(`SELECT ${SECRET_COLS} FROM secrets WHERE tenant_id = $1 AND user_id = $2 ORDER BY name`, [tenantId, userId]);
  }

  async put(r: SecretRow): Promise<void> {
    await this.db.exec(`INSERT INTO secrets (${SECRET_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
      ON CONFLICT (tenant_id, user_id, name) DO UPDATE SET description = excluded.description, key_id = excluded.key_id, iv = excluded.iv,
        tag = excluded.tag, ciphertext = excluded.ciphertext, updated_at = excluded.updated_at`,
    [r.tenant_id, r.user_id, r.name, r.description, r.key_id, r.iv, r.tag, r.ciphertext, r.created_at, r.updated_at]);
  }

  async delete(tenantId: string, userId: string, name: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM secrets WHERE tenant_id = $1 AND user_id = $2 AND name = $3', [tenantId, userId, name])) > 0;
  }
}
