/**
 * Ports of the agent catalog (issue 17 item 1): the store of agent rows (store/agents.ts) and who
 * asks. Pure types.
 */
import type { Awaitable } from '../../../../shared/db/async-store.js';
import type { AgentView, CatalogScope } from '../../contracts.js';

/** An agent's configuration as stored in `config_json` (everything but id, name, scope, owner, times). */
export type AgentConfig = Pick<AgentView, 'description' | 'instructions' | 'tools' | 'model_role' | 'model' | 'knowledge' | 'memory_scope' | 'guardrail_policy' | 'tool_approval'>;

/** A stored agent (table `agents`, migration 0008). */
export interface AgentRow {
  id: string;
  tenant_id: string;
  owner_id: string;
  scope: CatalogScope;
  name: string;
  config: AgentConfig;
  created_at: string;
  updated_at: string;
}

/** Agent rows of a tenant (Awaitable: SQLite answers now, PostgreSQL later; issue 21 item 1). */
export interface AgentStore {
  get(tenantId: string, id: string): Awaitable<AgentRow | undefined>;
  /** The tenant's agents and `ownerId`'s personal ones, by name. */
  visible(tenantId: string, ownerId: string): Awaitable<AgentRow[]>;
  /** Insert or replace the row (by tenant and id). */
  put(row: AgentRow): Awaitable<void>;
  delete(tenantId: string, id: string): Awaitable<boolean>;
}

/** Who asks: the tenant, the user, and whether the user holds the `admin` role. */
export interface CatalogCaller {
  tenantId: string;
  userId: string;
  isAdmin: boolean;
}
