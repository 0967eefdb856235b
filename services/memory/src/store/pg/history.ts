/** `memory_history` on PostgreSQL (issue 21 item 1): the `HistoryRepository` of ../history.ts. */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { HistoryEntry, HistoryRepository } from '../../domain/ports.js';

/** PostgreSQL implementation of `HistoryRepository`. */
export class PgHistory implements HistoryRepository {
  constructor(private readonly db: PgDb) {}

  async add(e: HistoryEntry): Promise<void> {
    await this.db.exec(`INSERT INTO memory_history (memory_id, tenant_id, user_id, event, actor_id, user_initiated, old_content, new_content, reason, at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [e.memory_id, e.tenant_id, e.user_id, e.event, e.actor_id, e.user_initiated, e.old_content, e.new_content, e.reason, e.at]);
  }

  of(memoryId: string): Promise<Array<Omit<HistoryEntry, 'memory_id' | 'tenant_id' | 'user_id'>>> {
    return this.db.query<Omit<HistoryEntry, 'memory_id' | 'tenant_id' | 'user_id'>>(
      'SELECT event, actor_id, user_initiated, old_content, new_content, reason, at FROM memory_history WHERE memory_id = $1 ORDER BY id', [memoryId]);
  }
}
