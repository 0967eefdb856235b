/**
 * The budget gate of inference calls (issue 4: a hard budget refuses, a soft one warns): asks
 * observability for the tenant's budget state (cached briefly; observability unreachable means no
 * limit) before any backend is tried.
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { InferenceErrorCode } from '../contracts.js';
import type { BudgetSource } from './ports.js';

/**
 * Check the tenant's budget.
 * @returns the warning to answer (`x-svc-budget-warning`) when the soft limit is reached, else null.
 * @throws DomainError `budget_exceeded` when the hard limit is reached.
 */
export async function budgetGate(budget: BudgetSource): Promise<string | null> {
  const b = await budget.status();
  if (b?.state === 'hard_exceeded') {
    throw new DomainError<InferenceErrorCode>('budget_exceeded', `the ${b.period}ly budget of tenant ${b.tenant_id} is spent (${b.spend_usd} of ${b.hard_limit_usd} USD); an admin can raise it`);
  }
  return b?.state === 'soft_exceeded' ? `soft budget reached: ${b.spend_usd} of ${b.soft_limit_usd} USD this ${b.period}` : null;
}
