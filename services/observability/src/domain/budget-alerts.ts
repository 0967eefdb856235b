/**
 * Budget threshold notifications (issue 13 item 1: "a budget threshold crossed"): after a new
 * generation record, the tenant's budget is evaluated (domain/budgets.ts); when its spend has reached
 * the soft or the hard limit of the current period, the admin who set the budget (`updated_by`) gets
 * one `budget_threshold` notification per period and state through the agent runtime (idempotency
 * key `budget:<tenant>:<period_start>:<state>`, so a restart does not repeat it). Checks run after the
 * current work, at most one pending per tenant; a tenant without limits costs one row read.
 */
import type { NotificationCreate } from '../../../agent-runtime/src/contracts.js';
import type { Awaitable } from '../../../shared/db/async-store.js';
import type { BudgetStatus } from '../contracts.js';

/** Sends a notification in the background; never throws. */
export type NoticeSink = (n: NotificationCreate) => void;

/** The `budget_threshold` notification of `s`, or null while it is `ok` or when no admin set it. */
export function budgetNotice(s: BudgetStatus): NotificationCreate | null {
  if (s.state === 'ok' || !s.updated_by || s.updated_by.startsWith('service:')) return null;
  const hard = s.state === 'hard_exceeded';
  const limit = hard ? s.hard_limit_usd : s.soft_limit_usd;
  return {
    tenant_id: s.tenant_id, user_id: s.updated_by, kind: 'budget_threshold',
    title: hard ? 'Budget exhausted: model calls are refused' : 'Budget warning: soft limit reached',
    body: `Spend this ${s.period} is $${s.spend_usd.toFixed(2)} of the ${hard ? 'hard' : 'soft'} limit $${(limit ?? 0).toFixed(2)}.`,
    payload: { tenant_id: s.tenant_id, state: s.state, period: s.period, period_start: s.period_start, spend_usd: s.spend_usd, limit_usd: limit, link: '/admin/usage' },
    idempotency_key: `budget:${s.tenant_id}:${s.period_start}:${s.state}`,
  };
}

/** What the alerts need. */
export interface BudgetAlertsDeps {
  /** The budget of a tenant with its spend (BudgetService.status). */
  status(tenantId: string): Awaitable<BudgetStatus>;
  /** Whether the tenant has a soft or hard limit at all (cheap). */
  hasLimits(tenantId: string): Awaitable<boolean>;
  sink: NoticeSink;
  /** Run `fn` after the current work (default `setImmediate`). */
  defer?: (fn: () => void) => void;
}

/** Watches spend against the budgets. */
export class BudgetAlerts {
  private readonly pending = new Set<string>();
  private readonly sent = new Set<string>();
  private readonly defer: (fn: () => void) => void;

  constructor(private readonly d: BudgetAlertsDeps) {
    this.defer = d.defer ?? ((fn) => { setImmediate(fn); });
  }

  /** A generation of `tenantId` was recorded: check its budget soon. Never throws. */
  recorded(tenantId: string): void {
    if (this.pending.has(tenantId)) return;
    this.pending.add(tenantId);
    this.defer(() => { void this.evaluate(tenantId); });
  }

  /** Check `tenantId`'s budget now and notify once per period and state. Never throws. */
  private async evaluate(tenantId: string): Promise<void> {
    this.pending.delete(tenantId);
    try {
      if (!(await this.d.hasLimits(tenantId))) return;
      const n = budgetNotice(await this.d.status(tenantId));
      if (!n || this.sent.has(n.idempotency_key!)) return;
      this.sent.add(n.idempotency_key!);
      this.d.sink(n);
    } catch { /* a failed check must not touch the ingestion; the next record checks again */ }
  }
}
