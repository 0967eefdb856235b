/**
 * The context trace (issue 13 item 5; spec "Agent runtime surfaces": `/v1/context/*`): stores each
 * chat turn's context record when the turn ends (the engine's `contextRecords` port) and answers it
 * to its owner, or to an admin of the same tenant. Anyone else gets `context_not_found`, the same
 * answer as for a turn that does not exist, so turn ids of others cannot be probed.
 */
import type { ContextRecord, ContextTrace } from '../../contracts.js';
import type { PreparedTurn, TurnOutcome } from '../chat/turn.js';
import { runtimeError } from '../errors.js';
import type { ContextRecordStore, ContextRecordSummary } from './ports.js';
import { buildContextRecord } from './record.js';

/** Who reads a record. */
export interface ContextViewer {
  tenantId: string;
  userId: string;
  roles: readonly string[];
}

/** What the service needs. */
export interface ContextRecordsOptions {
  store: ContextRecordStore;
  /** The prompt budget (AGENT_RUNTIME_CONTEXT_BUDGET_TOKENS minus the response reserve, at least 256), for turns that built no prompt. */
  budgetTokens: number;
  /** Records kept per user (AGENT_RUNTIME_CONTEXT_RECORDS_PER_USER). */
  keepPerUser: number;
  log: { warn(obj: object, msg: string): void };
  now?: () => Date;
}

/** Stores and answers context records. */
export class ContextRecords {
  private readonly now: () => Date;

  constructor(private readonly o: ContextRecordsOptions) {
    this.now = o.now ?? (() => new Date());
  }

  /**
   * Store the record of a finished turn. A turn without a turn id (no gateway stamp) or without a
   * journal is not recorded. Never throws: a failed write is logged and the turn goes on.
   */
  async record(p: PreparedTurn, o: TurnOutcome): Promise<void> {
    const turnId = p.who.turnId;
    if (!turnId || !o.journal) return;
    try {
      const record = buildContextRecord({
        turnId, sessionId: o.sessionId, agentId: o.agentId, status: o.status, assistantMessageId: o.assistantMessageId,
        trace: o.trace, journal: o.journal, budgetTokens: this.o.budgetTokens, now: this.now(),
      });
      await this.o.store.put({
        turn_id: turnId, tenant_id: p.who.tenantId, user_id: p.who.userId, session_id: record.session_id, agent_id: record.agent_id,
        status: record.status, total_tokens: record.total_tokens, created_at: record.created_at, record: JSON.stringify(record),
      }, this.o.keepPerUser);
    } catch (err) {
      this.o.log.warn({ err: (err as Error).message, turn_id: turnId }, 'the context record of a turn could not be stored');
    }
  }

  /**
   * The context record of `turnId`.
   * @throws DomainError `context_not_found` (absent, or another user's for a non-admin).
   */
  async get(turnId: string, viewer: ContextViewer): Promise<ContextRecord> {
    const row = await this.o.store.get(turnId, viewer.tenantId);
    if (!row || (row.user_id !== viewer.userId && !viewer.roles.includes('admin'))) {
      throw runtimeError('context_not_found', `no context record for turn ${turnId}`);
    }
    return JSON.parse(row.record) as ContextRecord;
  }

  /**
   * The step trace of `turnId`.
   * @throws DomainError `context_not_found`, as `get`.
   */
  async trace(turnId: string, viewer: ContextViewer): Promise<ContextTrace> {
    const r = await this.get(turnId, viewer);
    return { turn_id: r.turn_id, session_id: r.session_id, status: r.status, trace: r.trace, steps_omitted: r.steps_omitted };
  }

  /** The user's newest turns (summaries), newest first. */
  async recent(tenantId: string, userId: string, limit: number): Promise<ContextRecordSummary[]> {
    return this.o.store.recent(tenantId, userId, limit);
  }
}
