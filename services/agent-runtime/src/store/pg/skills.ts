/**
 * Skills and their versions on PostgreSQL (tables `skills`, `skill_versions`,
 * migrations/agent-runtime/pg/0002_integrations.sql; issue 21 item 1): the twin of store/skills.ts.
 * A save writes the row and its version in one transaction; a name taken in the same scope (and
 * owner) violates the unique index `skills_name` and answers false, as on SQLite.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { SkillFile, SkillVersion } from '../../contracts.js';
import type { SkillRow, SkillStore } from '../../domain/skills/ports.js';

type RawSkill = Omit<SkillRow, 'files'> & { files_json: string };
type RawVersion = Omit<SkillVersion, 'files'> & { files_json: string };

const filesOf = (json: string | null | undefined): SkillFile[] => (json ? JSON.parse(json) as SkillFile[] : []);
const rowOf = ({ files_json, ...r }: RawSkill): SkillRow => ({ ...r, files: filesOf(files_json) });

/** Whether `err` is the unique violation of a skill name (PostgreSQL 23505 on `skills`). */
function nameTaken(err: unknown): boolean {
  const e = err as { code?: string; table?: string; constraint?: string };
  return e.code === '23505' && (e.constraint === 'skills_name' || e.table === 'skills');
}

/** `SkillStore` over one service schema. */
export class PgSkillStore implements SkillStore {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string, id: string): Promise<SkillRow | undefined> {
    const [r] = await this.db.query<RawSkill>('SELECT * FROM skills WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
    return r ? rowOf(r) : undefined;
  }

  async visible(tenantId: string, ownerId: string): Promise<SkillRow[]> {
    const rows = await this.db.query<RawSkill>(`SELECT * FROM skills WHERE tenant_id = $1 AND (scope = 'tenant' OR owner_id = $2)
      ORDER BY name COLLATE "C", scope = 'tenant', id COLLATE "C"`, [tenantId, ownerId]);
    return rows.map(rowOf);
  }

  async save(row: SkillRow, createdBy: string): Promise<boolean> {
    const files_json = JSON.stringify(row.files ?? []);
    try {
      await this.db.tx(async () => {
        await this.db.exec(`INSERT INTO skills (id, tenant_id, owner_id, scope, name, description, content, version, sha256, files_json, created_at, updated_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
          ON CONFLICT (tenant_id, id) DO UPDATE SET name = excluded.name, description = excluded.description, content = excluded.content,
            version = excluded.version, sha256 = excluded.sha256, files_json = excluded.files_json, updated_at = excluded.updated_at`,
        [row.id, row.tenant_id, row.owner_id, row.scope, row.name, row.description, row.content, row.version, row.sha256, files_json, row.created_at, row.updated_at]);
        await this.db.exec(`INSERT INTO skill_versions (tenant_id, skill_id, version, name, description, content, sha256, files_json, created_by, created_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [row.tenant_id, row.id, row.version, row.name, row.description, row.content, row.sha256, files_json, createdBy, row.updated_at]);
      });
      return true;
    } catch (err) {
      if (nameTaken(err)) return false;
      throw err;
    }
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    return this.db.tx(async () => {
      await this.db.exec('DELETE FROM skill_versions WHERE tenant_id = $1 AND skill_id = $2', [tenantId, id]);
      return (await this.db.exec('DELETE FROM skills WHERE tenant_id = $1 AND id = $2', [tenantId, id])) > 0;
    });
  }

  async versions(tenantId: string, id: string): Promise<SkillVersion[]> {
    const rows = await this.db.query<RawVersion>(`SELECT version, name, description, content, sha256, files_json, created_by, created_at
      FROM skill_versions WHERE tenant_id = $1 AND skill_id = $2 ORDER BY version DESC`, [tenantId, id]);
    return rows.map(({ files_json, ...v }) => ({ ...v, files: filesOf(files_json) }));
  }
}
