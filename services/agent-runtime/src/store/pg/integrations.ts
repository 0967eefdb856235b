/**
 * The runtime's integration table groups on PostgreSQL (issue 21 item 1): agents, skills, MCP
 * servers and their OAuth records and plugin rules, OAuth integrations, webhooks and knowledge
 * connectors (migrations/agent-runtime/pg/0002_integrations.sql). `openPgRuntimeStore`
 * (store/pg/index.ts) spreads `pgIntegrationTables(db)` into its facade.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import { PgAgentStore } from './agents.js';
import { PgConnectorStore } from './connectors.js';
import { PgMcpServerStore } from './mcp.js';
import { PgMcpOAuthStore } from './mcp-oauth.js';
import { PgPluginRuleStore } from './mcp-plugins.js';
import { PgOAuthStore } from './oauth.js';
import { PgSkillStore } from './skills.js';
import { PgWebhookStore } from './webhooks.js';

/** The integration groups of the runtime's facade, on one service schema. */
export function pgIntegrationTables(db: PgDb): {
  agents: PgAgentStore; skills: PgSkillStore; mcpServers: PgMcpServerStore; mcpOAuth: PgMcpOAuthStore; pluginRules: PgPluginRuleStore;
  oauth: PgOAuthStore; webhooks: PgWebhookStore; connectors: PgConnectorStore;
} {
  return {
    agents: new PgAgentStore(db), skills: new PgSkillStore(db),
    mcpServers: new PgMcpServerStore(db), mcpOAuth: new PgMcpOAuthStore(db), pluginRules: new PgPluginRuleStore(db),
    oauth: new PgOAuthStore(db), webhooks: new PgWebhookStore(db), connectors: new PgConnectorStore(db),
  };
}
