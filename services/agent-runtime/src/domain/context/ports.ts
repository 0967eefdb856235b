/**
 * The store the context trace needs (issue 13 item 5), shaped so a PostgreSQL implementation could
 * stand behind it: rows are plain values, `record` is the JSON text of a `ContextRecord`.
 */
import type { Awaitable } from '../../../../shared/db/async-store.js';

/** A stored context record with the columns the owner check and the overview read. */
export interface ContextRecordRow {
  turn_id: string;
  tenant_id: string;
  user_id: string;
  session_id: string;
  agent_id: string;
  status: string;
  total_tokens: number;
  created_at: string;
  record: string;
}

/** A record's summary (no JSON), for lists. */
export type ContextRecordSummary = Omit<ContextRecordRow, 'record'>;

/** Context records of every user. */
export interface ContextRecordStore {
  /**
   * Insert (or replace: one record per turn id) and keep at most `keepPerUser` records of that
   * user, removing the oldest. @returns how many older records were removed.
   */
  put(row: ContextRecordRow, keepPerUser: number): Awaitable<number>;
  /** The record of `turnId` in `tenantId`, whoever owns it. */
  get(turnId: string, tenantId: string): Awaitable<ContextRecordRow | undefined>;
  /** The user's newest records first. */
  recent(tenantId: string, userId: string, limit: number): Awaitable<ContextRecordSummary[]>;
}
