/**
 * Tool approvals (issue 5 item 3; spec "Agent runtime surfaces": `/v1/user/approvals`,
 * `GET /v1/admin/approvals`). A tool whose policy is `ask` parks its run: the engine files approval
 * requests, emits `approval_required`, and waits here until the owner approves or rejects through the
 * user routes, the wait times out (`expired`), or the run goes away (`cancelled`).
 *
 * Records live in the store; waiters live in memory, so a restart cancels what was pending.
 */
import { ulidFactory } from '../../../shared/identity/ulid.js';
import type { ApprovalView } from '../contracts.js';
import { runtimeError } from './errors.js';
import type { ApprovalRow, ApprovalStore } from './ports.js';

const nextId = ulidFactory();

/** What the engine asks approval for. */
export interface ApprovalRequest {
  tenantId: string; userId: string; sessionId: string; agentId: string; turnId: string | null;
  tool: string; callId: string; arguments: unknown;
}

/** A final status of an approval. */
export type ApprovalOutcome = 'approved' | 'rejected' | 'expired' | 'cancelled';

/** Row to view (arguments parsed). */
export function approvalView(r: ApprovalRow): ApprovalView {
  let args: unknown = r.arguments;
  try { args = JSON.parse(r.arguments); } catch { /* keep the raw text */ }
  return {
    id: r.id, session_id: r.session_id, agent_id: r.agent_id, turn_id: r.turn_id, user_id: r.user_id, tool: r.tool, call_id: r.call_id,
    arguments: args, status: r.status as ApprovalView['status'], reason: r.reason, created_at: r.created_at, expires_at: r.expires_at,
    decided_at: r.decided_at, decided_by: r.decided_by,
  };
}

/**
 * Decisions across runtimes (issue 21 item 3): several runtimes share one store; a decision made on
 * one wakes the wait parked on another (clients/shared-wakeups.ts, over Redis). Absent: one runtime.
 */
export interface ApprovalSignal {
  /** Tell every runtime that approval `id` of `tenantId` was decided. */
  decided(id: string, tenantId: string): void;
  /** Call `fn` for decisions made anywhere. @returns unsubscribe. */
  onDecided(fn: (id: string, tenantId: string) => void): () => void;
}

/** Files, decides and awaits approvals. */
export class ApprovalCenter {
  private readonly waiters = new Map<string, { tenantId: string; list: Array<(v: ApprovalView) => void> }>();

  constructor(private readonly store: ApprovalStore, private readonly now: () => Date = () => new Date(), private readonly signal: ApprovalSignal | null = null) {
    // A decision made on another runtime: the row is in the shared store; wake the local waiters.
    signal?.onDecided((id, tenantId) => { this.notify(id, tenantId).catch(() => undefined); });
  }

  /** File pending approvals that expire after `timeoutMs`. */
  async file(reqs: readonly ApprovalRequest[], timeoutMs: number): Promise<ApprovalView[]> {
    const at = this.now();
    const out: ApprovalView[] = [];
    for (const q of reqs) {
      const row: ApprovalRow = {
        id: nextId(), tenant_id: q.tenantId, user_id: q.userId, session_id: q.sessionId, agent_id: q.agentId, turn_id: q.turnId, tool: q.tool,
        call_id: q.callId, arguments: JSON.stringify(q.arguments ?? null), status: 'pending', reason: null, created_at: at.toISOString(),
        expires_at: new Date(at.getTime() + timeoutMs).toISOString(), decided_at: null, decided_by: null,
      };
      await this.store.insert(row);
      out.push(approvalView(row));
    }
    return out;
  }

  /**
   * Wait until every approval in `ids` is decided, expiring the undecided after `timeoutMs` and
   * cancelling them when `signal` aborts.
   * @returns the final view of each, by id.
   */
  async wait(tenantId: string, ids: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<Map<string, ApprovalView>> {
    const out = new Map<string, ApprovalView>();
    await Promise.all(ids.map(async (id) => {
      const current = await this.store.get(id, tenantId);
      if (current && current.status !== 'pending') { out.set(id, approvalView(current)); return; }
      await this.park(id, tenantId, timeoutMs, out, signal);
    }));
    return out;
  }

  /** Park one wait until approval `id` is decided (or expires, or `signal` aborts); its final view goes into `out`. */
  private park(id: string, tenantId: string, timeoutMs: number, out: Map<string, ApprovalView>, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | null = null;
      const finish = (v: ApprovalView): void => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        out.set(id, v);
        resolve();
      };
      const settleAs = (status: ApprovalOutcome, reason: string): void => {
        this.settle(id, tenantId, status, reason).catch(() => undefined);
      };
      const onAbort = (): void => settleAs('cancelled', 'the run ended before a decision');
      const entry = this.waiters.get(id) ?? { tenantId, list: [] };
      entry.list.push(finish);
      this.waiters.set(id, entry);
      timer = setTimeout(() => settleAs('expired', 'no decision in time'), timeoutMs);
      timer.unref();
      if (signal?.aborted) onAbort(); else signal?.addEventListener('abort', onAbort, { once: true });
      // A decision that landed while the row was read (another request, another runtime) wakes it now.
      this.notifyDecided(id, tenantId).catch(() => undefined);
    });
  }

  /** Decide as the runtime (expiry, cancel) and wake the waiters. */
  private async settle(id: string, tenantId: string, status: ApprovalOutcome, reason: string): Promise<void> {
    await this.store.decide(id, tenantId, status, reason, this.now().toISOString(), null);
    await this.notify(id, tenantId);
  }

  /** Wake the waiters of `id` when it is no longer pending. */
  private async notifyDecided(id: string, tenantId: string): Promise<void> {
    const row = await this.store.get(id, tenantId);
    if (row && row.status !== 'pending') await this.notify(id, tenantId);
  }

  private async notify(id: string, tenantId: string): Promise<void> {
    const row = await this.store.get(id, tenantId);
    const entry = this.waiters.get(id);
    if (!row || !entry) return;
    this.waiters.delete(id);
    const v = approvalView(row);
    for (const w of entry.list) w(v);
  }

  /** Cancel every parked wait (shutdown), so parked runs finish and their streams end. */
  async cancelAll(reason: string): Promise<void> {
    for (const [id, entry] of [...this.waiters]) {
      await this.store.decide(id, entry.tenantId, 'cancelled', reason, this.now().toISOString(), null);
      await this.notify(id, entry.tenantId);
    }
  }

  /**
   * The owner decides a pending approval.
   * @throws DomainError `approval_not_found` (absent or not the caller's), `approval_decided`.
   */
  async decide(id: string, tenantId: string, userId: string, decision: 'approved' | 'rejected', reason: string | null): Promise<ApprovalView> {
    const row = await this.store.get(id, tenantId);
    if (!row || row.user_id !== userId) throw runtimeError('approval_not_found', `no approval ${id}`);
    if (!await this.store.decide(id, tenantId, decision, reason, this.now().toISOString(), userId)) {
      throw runtimeError('approval_decided', `approval ${id} is already ${(await this.store.get(id, tenantId))?.status ?? 'decided'}`);
    }
    await this.notify(id, tenantId);
    this.signal?.decided(id, tenantId);
    return approvalView((await this.store.get(id, tenantId))!);
  }

  /** Approvals newest first; `userId` null = whole tenant (admin). */
  async list(tenantId: string, userId: string | null, status: string | null, limit = 100): Promise<ApprovalView[]> {
    return (await this.store.list(tenantId, userId, status, limit)).map(approvalView);
  }

  /** Whether a run is waiting on an approval. */
  get parked(): number {
    return this.waiters.size;
  }
}
