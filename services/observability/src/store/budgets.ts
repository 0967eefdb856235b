/** `budgets` table (migrations/observability/0001_init.sql): one budget per tenant. */
import type { Db } from '../../../shared/db/open.js';
import type { BudgetRow, BudgetStore } from '../domain/ports.js';

/** SQLite implementation of `BudgetStore`. */
export class SqliteBudgetStore implements BudgetStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      get: db.prepare('SELECT * FROM budgets WHERE tenant_id = ?'),
      all: db.prepare('SELECT * FROM budgets ORDER BY tenant_id'),
      put: db.prepare(`INSERT INTO budgets (tenant_id, period, soft_limit_usd, hard_limit_usd, updated_at, updated_by)
      VALUES (@tenant_id, @period, @soft_limit_usd, @hard_limit_usd, @updated_at, @updated_by)
      ON CONFLICT(tenant_id) DO UPDATE SET period = excluded.period, soft_limit_usd = excluded.soft_limit_usd,
        hard_limit_usd = excluded.hard_limit_usd, updated_at = excluded.updated_at, updated_by = excluded.updated_by`),
    };
  }

  get(tenantId: string): BudgetRow | null { return (this.q.get.get(tenantId) as BudgetRow | undefined) ?? null; }
  all(): BudgetRow[] { return this.q.all.all() as BudgetRow[]; }
  put(b: BudgetRow): void { this.q.put.run(b); }
}
