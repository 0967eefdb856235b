/**
 * Skills and their versions over SQLite (tables `skills`, `skill_versions`, migration 0008; issue 17
 * item 2). A save writes the current row and its version in one transaction; a name taken in the
 * same scope (and owner) is refused by the unique index `skills_name`. Files are `files_json`
 * (migration 0013) on both tables.
 */
import type { Db } from '../../../shared/db/open.js';
import type { SkillVersion } from '../contracts.js';
import type { SkillFile } from '../contracts.js';
import type { SkillRow, SkillStore } from '../domain/skills/ports.js';

/** A row as SQLite answers it (`files_json`, migration 0013). */
type RawSkill = Omit<SkillRow, 'files'> & { files_json: string };
type RawVersion = Omit<SkillVersion, 'files'> & { files_json: string };

const filesOf = (json: string | null | undefined): SkillFile[] => (json ? JSON.parse(json) as SkillFile[] : []);
const rowOf = ({ files_json, ...r }: RawSkill): SkillRow => ({ ...r, files: filesOf(files_json) });

/** `SkillStore` over one open database. */
export class SqliteSkillStore implements SkillStore {
  private readonly s;
  private readonly saveTx: (row: SkillRow, createdBy: string) => void;

  constructor(db: Db) {
    this.s = {
      get: db.prepare<[string, string], RawSkill>('SELECT * FROM skills WHERE tenant_id = ? AND id = ?'),
      visible: db.prepare<[string, string], RawSkill>(`SELECT * FROM skills WHERE tenant_id = ? AND (scope = 'tenant' OR owner_id = ?)
        ORDER BY name, scope = 'tenant', id`),
      put: db.prepare(`INSERT INTO skills (id, tenant_id, owner_id, scope, name, description, content, version, sha256, files_json, created_at, updated_at)
        VALUES (@id, @tenant_id, @owner_id, @scope, @name, @description, @content, @version, @sha256, @files_json, @created_at, @updated_at)
        ON CONFLICT (tenant_id, id) DO UPDATE SET name = excluded.name, description = excluded.description, content = excluded.content,
          version = excluded.version, sha256 = excluded.sha256, files_json = excluded.files_json, updated_at = excluded.updated_at`),
      version: db.prepare(`INSERT INTO skill_versions (tenant_id, skill_id, version, name, description, content, sha256, files_json, created_by, created_at)
        VALUES (@tenant_id, @skill_id, @version, @name, @description, @content, @sha256, @files_json, @created_by, @created_at)`),
      versions: db.prepare<[string, string], RawVersion>(`SELECT version, name, description, content, sha256, files_json, created_by, created_at
        FROM skill_versions WHERE tenant_id = ? AND skill_id = ? ORDER BY version DESC`),
      delete: db.prepare('DELETE FROM skills WHERE tenant_id = ? AND id = ?'),
      deleteVersions: db.prepare('DELETE FROM skill_versions WHERE tenant_id = ? AND skill_id = ?'),
    };
    this.saveTx = db.transaction((row: SkillRow, createdBy: string) => {
      const { files, ...cols } = row;
      const files_json = JSON.stringify(files ?? []);
      this.s.put.run({ ...cols, files_json });
      this.s.version.run({
        tenant_id: row.tenant_id, skill_id: row.id, version: row.version, name: row.name, description: row.description, content: row.content,
        sha256: row.sha256, files_json, created_by: createdBy, created_at: row.updated_at,
      });
    });
  }

  get(tenantId: string, id: string): SkillRow | undefined {
    const r = this.s.get.get(tenantId, id);
    return r ? rowOf(r) : undefined;
  }

  visible(tenantId: string, ownerId: string): SkillRow[] {
    return this.s.visible.all(tenantId, ownerId).map(rowOf);
  }

  save(row: SkillRow, createdBy: string): boolean {
    try {
      this.saveTx(row, createdBy);
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && /skills\.|skills_name|index/.test((err as Error).message)) return false;
      throw err;
    }
  }

  delete(tenantId: string, id: string): boolean {
    this.s.deleteVersions.run(tenantId, id);
    return this.s.delete.run(tenantId, id).changes > 0;
  }

  versions(tenantId: string, id: string): SkillVersion[] {
    return this.s.versions.all(tenantId, id).map(({ files_json, ...v }) => ({ ...v, files: filesOf(files_json) }));
  }
}
