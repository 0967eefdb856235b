/** `second_factor_policy` table (migrations/auth/0003_devices.sql; issue 14): the admin's setting. */
import type { Db } from '../../../shared/db/open.js';
import type { PolicyStore } from '../domain/device-ports.js';

/** SQLite implementation of `PolicyStore`. */
export class SqlitePolicyStore implements PolicyStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      get: db.prepare<[], { enforced: number; updated_at: number; updated_by: string }>('SELECT enforced, updated_at, updated_by FROM second_factor_policy WHERE id = 1'),
      set: db.prepare<[number, number, string]>(`INSERT INTO second_factor_policy (id, enforced, updated_at, updated_by) VALUES (1, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET enforced = excluded.enforced, updated_at = excluded.updated_at, updated_by = excluded.updated_by`),
    };
  }

  get(): { enforced: boolean; updated_at: number; updated_by: string } | null {
    const r = this.q.get.get();
    return r ? { ...r, enforced: r.enforced === 1 } : null;
  }
  set(enforced: boolean, at: number, by: string): void { this.q.set.run(enforced ? 1 : 0, at, by); }
}
