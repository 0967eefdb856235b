/**
 * Permission profiles and turn statistics on PostgreSQL (issue 21 item 1; tables
 * `permission_profiles`, `turn_stats`, `turn_tool_stats` of migrations/agent-runtime/pg/0001_core.sql):
 * the twins of store/admin.ts.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type {
  ErrorCounts, ErrorRow, ProfileRow, ProfileStore, ToolCountRow, TurnStatRow, TurnStatsStore, TurnToolRow,
} from '../../domain/admin/ports.js';

/** True for PostgreSQL's unique violation. */
function isUnique(err: unknown): boolean {
  return (err as { code?: string }).code === '23505';
}

const PROFILE_COLS = 'id, tenant_id, name, roles, groups, agents, tools, knowledge, created_at, updated_at, updated_by';

/** `ProfileStore` on one schema. */
export class PgProfileStore implements ProfileStore {
  constructor(private readonly db: PgDb) {}

  async list(tenantId: string): Promise<ProfileRow[]> {
    return this.db.query<ProfileRow>(`SELECT ${PROFILE_COLS} FROM permission_profiles WHERE tenant_id = $1 ORDER BY name, id`, [tenantId]);
  }

  async get(tenantId: string, id: string): Promise<ProfileRow | undefined> {
    const [r] = await this.db.query<ProfileRow>(`SELECT ${PROFILE_COLS} FROM permission_profiles WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    return r;
  }

  async insert(r: ProfileRow): Promise<boolean> {
    try {
      // A savepoint, so a refused insert inside a caller's transaction leaves that transaction usable.
      await this.db.tx(() => this.db.exec(`INSERT INTO permission_profiles (${PROFILE_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [r.id, r.tenant_id, r.name, r.roles, r.groups, r.agents, r.tools, r.knowledge, r.created_at, r.updated_at, r.updated_by]));
      return true;
    } catch (err) { if (isUnique(err)) return false; throw err; }
  }

  async update(r: ProfileRow): Promise<'ok' | 'missing' | 'name_taken'> {
    try {
      const n = await this.db.tx(() => this.db.exec(`UPDATE permission_profiles SET name = $1, roles = $2, groups = $3, agents = $4, tools = $5, knowledge = $6,
        updated_at = $7, updated_by = $8 WHERE tenant_id = $9 AND id = $10`,
      [r.name, r.roles, r.groups, r.agents, r.tools, r.knowledge, r.updated_at, r.updated_by, r.tenant_id, r.id]));
      return n > 0 ? 'ok' : 'missing';
    } catch (err) { if (isUnique(err)) return 'name_taken'; throw err; }
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM permission_profiles WHERE tenant_id = $1 AND id = $2', [tenantId, id])) > 0;
  }
}

/** Statuses of a tool call that count as errors. */
const TOOL_ERROR_STATUSES = "('error', 'invalid')";
const STAT_COLS = `id, turn_id, tenant_id, agent_id, user_id, session_id, status, error_code, error_message, guard_unavailable, tool_calls, tool_errors,
  latency_ms, prompt_tokens, completion_tokens, started_at, ended_at, day`;
const FAILED = "status = 'failed' AND guard_unavailable = 0 AND COALESCE(error_code, '') <> 'client_closed'";

/** `TurnStatsStore` on one schema. */
export class PgTurnStatsStore implements TurnStatsStore {
  constructor(private readonly db: PgDb) {}

  async record(r: TurnStatRow, tools: readonly TurnToolRow[]): Promise<void> {
    await this.db.tx(async () => {
      const n = await this.db.exec(`INSERT INTO turn_stats (${STAT_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
        ON CONFLICT DO NOTHING`, [r.id, r.turn_id, r.tenant_id, r.agent_id, r.user_id, r.session_id, r.status, r.error_code, r.error_message, r.guard_unavailable,
        r.tool_calls, r.tool_errors, r.latency_ms, r.prompt_tokens, r.completion_tokens, r.started_at, r.ended_at, r.day]);
      if (n === 0 || tools.length === 0) return;
      await this.db.exec(`INSERT INTO turn_tool_stats (stat_id, tenant_id, agent_id, tool, status, ended_at)
        SELECT $1, $2, $3, t.tool, t.status, $4 FROM unnest($5::text[], $6::text[]) AS t(tool, status)`,
      [r.id, r.tenant_id, r.agent_id, r.ended_at, tools.map((t) => t.tool), tools.map((t) => t.status)]);
    });
  }

  async since(tenantId: string, since: string): Promise<TurnStatRow[]> {
    return this.db.query<TurnStatRow>(`SELECT ${STAT_COLS} FROM turn_stats WHERE tenant_id = $1 AND ended_at >= $2 ORDER BY ended_at`, [tenantId, since]);
  }

  async toolCounts(tenantId: string, since: string): Promise<ToolCountRow[]> {
    return this.db.query<ToolCountRow>(`SELECT agent_id, tool, COUNT(*) AS calls, SUM(CASE WHEN status IN ${TOOL_ERROR_STATUSES} THEN 1 ELSE 0 END) AS errors
      FROM turn_tool_stats WHERE tenant_id = $1 AND ended_at >= $2 GROUP BY agent_id, tool ORDER BY agent_id, tool`, [tenantId, since]);
  }

  async errorCounts(tenantId: string, since: string): Promise<ErrorCounts> {
    const [t] = await this.db.query<{ turn_failed: number | null; guard_unavailable: number | null }>(`SELECT
        SUM(CASE WHEN ${FAILED} THEN 1 ELSE 0 END) AS turn_failed, SUM(guard_unavailable) AS guard_unavailable
      FROM turn_stats WHERE tenant_id = $1 AND ended_at >= $2`, [tenantId, since]);
    const [x] = await this.db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM turn_tool_stats WHERE tenant_id = $1 AND ended_at >= $2 AND status IN ${TOOL_ERROR_STATUSES}`,
      [tenantId, since]);
    return { turn_failed: t?.turn_failed ?? 0, tool_errors: x?.n ?? 0, guard_unavailable: t?.guard_unavailable ?? 0 };
  }

  async recentErrors(tenantId: string, since: string, limit: number): Promise<ErrorRow[]> {
    return this.db.query<ErrorRow>(`SELECT * FROM (
        SELECT ended_at AS at, 'turn_failed' AS kind, error_code AS code, error_message AS message, turn_id, agent_id FROM turn_stats
          WHERE tenant_id = $1 AND ended_at >= $2 AND ${FAILED}
        UNION ALL
        SELECT ended_at, 'guard_unavailable', error_code, error_message, turn_id, agent_id FROM turn_stats
          WHERE tenant_id = $1 AND ended_at >= $2 AND guard_unavailable = 1
        UNION ALL
        SELECT x.ended_at, 'tool_error', x.status, 'tool ' || x.tool || ' ended with ' || x.status, s.turn_id, x.agent_id
          FROM turn_tool_stats x JOIN turn_stats s ON s.id = x.stat_id
          WHERE x.tenant_id = $1 AND x.ended_at >= $2 AND x.status IN ${TOOL_ERROR_STATUSES}
      ) e ORDER BY at DESC LIMIT $3`, [tenantId, since, limit]);
  }
}
