/** `memory_history` (migrations/memory/0001_init.sql): every change of every memory. */
import type { Db } from '../../../shared/db/open.js';
import type { HistoryEntry, HistoryRepository } from '../domain/ports.js';

/** A history row as SQLite holds it (without the memory's keys). */
interface Row { event: string; actor_id: string; user_initiated: number; old_content: string | null; new_content: string | null; reason: string | null; at: string }

/** SQLite implementation of `HistoryRepository`. */
export class SqliteHistory implements HistoryRepository {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      add: db.prepare(`INSERT INTO memory_history (memory_id, tenant_id, user_id, event, actor_id, user_initiated, old_content, new_content, reason, at)
        VALUES (@memory_id, @tenant_id, @user_id, @event, @actor_id, @user_initiated, @old_content, @new_content, @reason, @at)`),
      of: db.prepare<[string], Row>('SELECT event, actor_id, user_initiated, old_content, new_content, reason, at FROM memory_history WHERE memory_id = ? ORDER BY id'),
    };
  }

  add(e: HistoryEntry): void { this.q.add.run({ ...e, user_initiated: e.user_initiated ? 1 : 0 }); }

  of(memoryId: string): Array<Omit<HistoryEntry, 'memory_id' | 'tenant_id' | 'user_id'>> {
    return this.q.of.all(memoryId).map((r) => ({ ...r, user_initiated: r.user_initiated === 1 }));
  }
}
