/**
 * Folders over SQLite (table `folders`; the session count reads `sessions`). Statements are prepared once.
 */
import type { Db } from '../../../shared/db/open.js';
import type { FolderRow, FolderStore } from '../domain/ports.js';

/** `FolderStore` over one open database. */
export class SqliteFolderStore implements FolderStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      insert: db.prepare('INSERT INTO folders (id, tenant_id, user_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)'),
      get: db.prepare(`SELECT f.*, (SELECT COUNT(*) FROM sessions s WHERE s.folder_id = f.id) AS session_count FROM folders f
        WHERE f.id = ? AND f.tenant_id = ? AND f.user_id = ?`),
      list: db.prepare(`SELECT f.*, (SELECT COUNT(*) FROM sessions s WHERE s.folder_id = f.id) AS session_count FROM folders f
        WHERE f.tenant_id = ? AND f.user_id = ? ORDER BY f.name COLLATE NOCASE, f.id`),
      rename: db.prepare('UPDATE folders SET name = ?, updated_at = ? WHERE id = ? AND tenant_id = ? AND user_id = ?'),
      delete: db.prepare('DELETE FROM folders WHERE id = ? AND tenant_id = ? AND user_id = ?'),
    };
  }

  create(id: string, tenantId: string, userId: string, name: string, now: string): void {
    this.s.insert.run(id, tenantId, userId, name, now, now);
  }

  get(id: string, tenantId: string, userId: string): FolderRow | undefined {
    return this.s.get.get(id, tenantId, userId) as FolderRow | undefined;
  }

  list(tenantId: string, userId: string): FolderRow[] {
    return this.s.list.all(tenantId, userId) as FolderRow[];
  }

  rename(id: string, tenantId: string, userId: string, name: string, now: string): boolean {
    return this.s.rename.run(name, now, id, tenantId, userId).changes > 0;
  }

  delete(id: string, tenantId: string, userId: string): boolean {
    return this.s.delete.run(id, tenantId, userId).changes > 0;
  }
}
