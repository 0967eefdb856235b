/**
 * Budget and usage use cases (issue 4: a tenant budget per day or month, soft warns and hard
 * refuses; spec "Observability" usage): a budget's state over the spend of its current period, the
 * admin's list and change, the router's check, and the usage report of the pinned tenant.
 */
import { invalidInput } from '../../../shared/kit/domain-error.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { isServicePrincipal } from '../../../shared/identity/principal-types.js';
import type { BudgetInput, BudgetStatus, ObservabilityErrorCode, UsageQuery, UsageReport } from '../contracts.js';
import type { BudgetStore, Caller, GenerationStore } from './ports.js';
import { budgetState, periodStart } from './prices.js';

/** Budgets of the tenants. */
export class BudgetService {
  constructor(private readonly d: { budgets: BudgetStore; generations: GenerationStore; tenantId: string }) {}

  /** Budget of `tenantId` with the spend of its current period; a tenant with none is `ok` with no limits (monthly). */
  async status(tenantId: string, now: Date = new Date()): Promise<BudgetStatus> {
    const b = await this.d.budgets.get(tenantId);
    const period = b?.period ?? 'month';
    const start = periodStart(period, now);
    const spend = Math.round((await this.d.generations.spend(tenantId, start)) * 1e9) / 1e9;
    const soft = b?.soft_limit_usd ?? null; const hard = b?.hard_limit_usd ?? null;
    return {
      tenant_id: tenantId, period, soft_limit_usd: soft, hard_limit_usd: hard, period_start: start, spend_usd: spend,
      state: budgetState(spend, soft, hard), updated_at: b?.updated_at ?? null, updated_by: b?.updated_by ?? null,
    };
  }

  /** The pinned tenant's budget and every other tenant that has one, by tenant id. */
  async list(): Promise<{ items: BudgetStatus[] }> {
    const tenants = new Set([this.d.tenantId, ...(await this.d.budgets.all()).map((b) => b.tenant_id)]);
    const items: BudgetStatus[] = [];
    for (const t of [...tenants].sort()) items.push(await this.status(t));
    return { items };
  }

  /**
   * Set a tenant's budget (null clears a limit).
   * @throws DomainError `invalid_request` when the soft limit exceeds the hard one.
   */
  async set(tenantId: string, input: BudgetInput, adminId: string): Promise<BudgetStatus> {
    const soft = input.soft_limit_usd ?? null; const hard = input.hard_limit_usd ?? null;
    if (soft !== null && hard !== null && soft > hard) throw invalidInput('soft_limit_usd must not exceed hard_limit_usd', 'body.soft_limit_usd');
    await this.d.budgets.put({ tenant_id: tenantId, period: input.period, soft_limit_usd: soft, hard_limit_usd: hard, updated_at: new Date().toISOString(), updated_by: adminId });
    return this.status(tenantId);
  }

  /** The router's check. @throws DomainError `service_account_required` unless a service or an admin asks. */
  async check(caller: Caller, tenantId: string): Promise<BudgetStatus> {
    if (!isServicePrincipal(caller) && !caller.roles.includes('admin')) throw new DomainError<ObservabilityErrorCode>('service_account_required', 'budget status is for services and admins');
    return this.status(tenantId);
  }

  /** Spend and tokens of the pinned tenant over `since..until`, by user and by model, with its budget (null when none is set). */
  async usage(q: UsageQuery): Promise<UsageReport> {
    const since = q.since ? new Date(q.since).toISOString() : undefined;
    const until = q.until ? new Date(q.until).toISOString() : undefined;
    const tenantId = this.d.tenantId;
    const f = { tenantId, since, until };
    const g = this.d.generations;
    return {
      tenant_id: tenantId, since: since ?? null, until: until ?? null, totals: (await g.stats(f, null))[0]!,
      by_user: await g.stats(f, 'user_id'), by_model: await g.stats(f, 'model'),
      budget: (await this.d.budgets.get(tenantId)) ? await this.status(tenantId) : null,
    };
  }
}
