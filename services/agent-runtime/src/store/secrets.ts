/**
 * User and tenant secrets over SQLite (table `secrets`, migration 0003; issue 13 item 3). Rows hold
 * ciphertext, IV and tag only (domain/secrets.ts seals them); the plaintext never reaches SQLite.
 */
import type { Db } from '../../../shared/db/open.js';
import type { SecretRow, SecretStore } from '../domain/secrets.js';

/** `SecretStore` over one open database. */
export class SqliteSecretStore implements SecretStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      get: db.prepare<[string, string, string], SecretRow>('SELECT * FROM secrets WHERE tenant_id = ? AND user_id = ? AND name = ?'),
      list: db.prepare<[string, string], SecretRow>('SELECT * FROM secrets WHERE tenant_id = ? AND user_id = ? ORDER BY name'),
      put: db.prepare(`INSERT INTO secrets (tenant_id, user_id, name, description, key_id, iv, tag, ciphertext, created_at, updated_at)
        VALUES (@tenant_id, @user_id, @name, @description, @key_id, @iv, @tag, @ciphertext, @created_at, @updated_at)
        ON CONFLICT (tenant_id, user_id, name) DO UPDATE SET description = excluded.description, key_id = excluded.key_id, iv = excluded.iv,
          tag = excluded.tag, ciphertext = excluded.ciphertext, updated_at = excluded.updated_at`),
      delete: db.prepare('DELETE FROM secrets WHERE tenant_id = ? AND user_id = ? AND name = ?'),
    };
  }

  get(tenantId: string, userId: string, name: string): SecretRow | undefined {
    return this.s.get.get(tenantId, userId, name);
  }

  list(tenantId: string, userId: string): SecretRow[] {
    return this.s.list.all(tenantId, userId);
  }

  put(row: SecretRow): void {
    this.s.put.run(row);
  }

  delete(tenantId: string, userId: string, name: string): boolean {
    return this.s.delete.run(tenantId, userId, name).changes > 0;
  }
}
