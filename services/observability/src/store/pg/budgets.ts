/** `budgets` on PostgreSQL (issue 21 item 1): the twin of store/budgets.ts, one budget per tenant. */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { BudgetRow, BudgetStore } from '../../domain/ports.js';

/** PostgreSQL implementation of `BudgetStore`. */
export class PgBudgetStore implements BudgetStore {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string): Promise<BudgetRow | null> {
    const [r] = await this.db.query<BudgetRow>('SELECT * FROM budgets WHERE tenant_id = $1', [tenantId]);
    return r ?? null;
  }

  all(): Promise<BudgetRow[]> { return this.db.query<BudgetRow>('SELECT * FROM budgets ORDER BY tenant_id'); }

  async put(b: BudgetRow): Promise<void> {
    await this.db.exec(`INSERT INTO budgets (tenant_id, period, soft_limit_usd, hard_limit_usd, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6)
      ON CONFLICT (tenant_id) DO UPDATE SET period = excluded.period, soft_limit_usd = excluded.soft_limit_usd,
        hard_limit_usd = excluded.hard_limit_usd, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
    [b.tenant_id, b.period, b.soft_limit_usd, b.hard_limit_usd, b.updated_at, b.updated_by]);
  }
}
