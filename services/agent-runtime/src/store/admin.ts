/**
 * Admin tables over SQLite (migration 0006: `permission_profiles`, `turn_stats`, `turn_tool_stats`;
 * issue 13 item 8). Statements are prepared once.
 */
import type { Db } from '../../../shared/db/open.js';
import type {
  ErrorCounts, ErrorRow, ProfileRow, ProfileStore, ToolCountRow, TurnStatRow, TurnStatsStore, TurnToolRow,
} from '../domain/admin/ports.js';

/** True for SQLite's unique-constraint failure. */
function isUnique(err: unknown): boolean {
  return (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** `ProfileStore` over one open database. */
export class SqliteProfileStore implements ProfileStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      list: db.prepare('SELECT * FROM permission_profiles WHERE tenant_id = ? ORDER BY name, id'),
      get: db.prepare('SELECT * FROM permission_profiles WHERE tenant_id = ? AND id = ?'),
      insert: db.prepare(`INSERT INTO permission_profiles (id, tenant_id, name, roles, groups, agents, tools, knowledge, created_at, updated_at, updated_by)
        VALUES (@id, @tenant_id, @name, @roles, @groups, @agents, @tools, @knowledge, @created_at, @updated_at, @updated_by)`),
      update: db.prepare(`UPDATE permission_profiles SET name = @name, roles = @roles, groups = @groups, agents = @agents, tools = @tools,
        knowledge = @knowledge, updated_at = @updated_at, updated_by = @updated_by WHERE tenant_id = @tenant_id AND id = @id`),
      delete: db.prepare('DELETE FROM permission_profiles WHERE tenant_id = ? AND id = ?'),
    };
  }

  list(tenantId: string): ProfileRow[] {
    return this.s.list.all(tenantId) as ProfileRow[];
  }

  get(tenantId: string, id: string): ProfileRow | undefined {
    return this.s.get.get(tenantId, id) as ProfileRow | undefined;
  }

  insert(row: ProfileRow): boolean {
    try { this.s.insert.run(row); return true; } catch (err) { if (isUnique(err)) return false; throw err; }
  }

  update(row: ProfileRow): 'ok' | 'missing' | 'name_taken' {
    try {
      const { created_at: _c, ...fields } = row;
      return this.s.update.run(fields).changes > 0 ? 'ok' : 'missing';
    } catch (err) { if (isUnique(err)) return 'name_taken'; throw err; }
  }

  delete(tenantId: string, id: string): boolean {
    return this.s.delete.run(tenantId, id).changes > 0;
  }
}

/** Statuses of a tool call that count as errors. */
const TOOL_ERROR_STATUSES = "('error', 'invalid')";

/** `TurnStatsStore` over one open database. */
export class SqliteTurnStatsStore implements TurnStatsStore {
  private readonly s;
  private readonly recordTx;

  constructor(db: Db) {
    this.s = {
      insert: db.prepare(`INSERT OR IGNORE INTO turn_stats (id, turn_id, tenant_id, agent_id, user_id, session_id, status, error_code, error_message,
        guard_unavailable, tool_calls, tool_errors, latency_ms, prompt_tokens, completion_tokens, started_at, ended_at, day)
        VALUES (@id, @turn_id, @tenant_id, @agent_id, @user_id, @session_id, @status, @error_code, @error_message, @guard_unavailable, @tool_calls,
        @tool_errors, @latency_ms, @prompt_tokens, @completion_tokens, @started_at, @ended_at, @day)`),
      insertTool: db.prepare('INSERT INTO turn_tool_stats (stat_id, tenant_id, agent_id, tool, status, ended_at) VALUES (?, ?, ?, ?, ?, ?)'),
      since: db.prepare('SELECT * FROM turn_stats WHERE tenant_id = ? AND ended_at >= ? ORDER BY ended_at'),
      toolCounts: db.prepare(`SELECT agent_id, tool, COUNT(*) AS calls, SUM(CASE WHEN status IN ${TOOL_ERROR_STATUSES} THEN 1 ELSE 0 END) AS errors
        FROM turn_tool_stats WHERE tenant_id = ? AND ended_at >= ? GROUP BY agent_id, tool ORDER BY agent_id, tool`),
      turnErrors: db.prepare(`SELECT
          SUM(CASE WHEN status = 'failed' AND guard_unavailable = 0 AND COALESCE(error_code, '') <> 'client_closed' THEN 1 ELSE 0 END) AS turn_failed,
          SUM(guard_unavailable) AS guard_unavailable
        FROM turn_stats WHERE tenant_id = ? AND ended_at >= ?`),
      toolErrors: db.prepare(`SELECT COUNT(*) AS n FROM turn_tool_stats WHERE tenant_id = ? AND ended_at >= ? AND status IN ${TOOL_ERROR_STATUSES}`),
      recent: db.prepare(`SELECT * FROM (
          SELECT ended_at AS at, 'turn_failed' AS kind, error_code AS code, error_message AS message, turn_id, agent_id FROM turn_stats
            WHERE tenant_id = @t AND ended_at >= @since AND status = 'failed' AND guard_unavailable = 0 AND COALESCE(error_code, '') <> 'client_closed'
          UNION ALL
          SELECT ended_at, 'guard_unavailable', error_code, error_message, turn_id, agent_id FROM turn_stats
            WHERE tenant_id = @t AND ended_at >= @since AND guard_unavailable = 1
          UNION ALL
          SELECT x.ended_at, 'tool_error', x.status, 'tool ' || x.tool || ' ended with ' || x.status, s.turn_id, x.agent_id
            FROM turn_tool_stats x JOIN turn_stats s ON s.id = x.stat_id
            WHERE x.tenant_id = @t AND x.ended_at >= @since AND x.status IN ${TOOL_ERROR_STATUSES}
        ) ORDER BY at DESC LIMIT @limit`),
    };
    this.recordTx = db.transaction((row: TurnStatRow, tools: readonly TurnToolRow[]) => {
      if (this.s.insert.run(row).changes === 0) return;
      for (const t of tools) this.s.insertTool.run(row.id, row.tenant_id, row.agent_id, t.tool, t.status, row.ended_at);
    });
  }

  record(row: TurnStatRow, tools: readonly TurnToolRow[]): void {
    this.recordTx(row, tools);
  }

  since(tenantId: string, since: string): TurnStatRow[] {
    return this.s.since.all(tenantId, since) as TurnStatRow[];
  }

  toolCounts(tenantId: string, since: string): ToolCountRow[] {
    return this.s.toolCounts.all(tenantId, since) as ToolCountRow[];
  }

  errorCounts(tenantId: string, since: string): ErrorCounts {
    const t = this.s.turnErrors.get(tenantId, since) as { turn_failed: number | null; guard_unavailable: number | null };
    const x = this.s.toolErrors.get(tenantId, since) as { n: number };
    return { turn_failed: t.turn_failed ?? 0, tool_errors: x.n, guard_unavailable: t.guard_unavailable ?? 0 };
  }

  recentErrors(tenantId: string, since: string, limit: number): ErrorRow[] {
    return this.s.recent.all({ t: tenantId, since, limit }) as ErrorRow[];
  }
}
