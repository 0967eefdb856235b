/**
 * The runtime's SQLite store (`<dbDir>/agent-runtime.sqlite`, migrations/agent-runtime): opens the
 * database and hands out one store per table group (sessions and messages, folders, approvals,
 * tool policies). The only code of the runtime that touches SQLite.
 */
import { openStore, type Store } from '../../../shared/db/store.js';
import type { AsyncStoreHandle } from '../../../shared/db/async-store.js';
import type { Db } from '../../../shared/db/open.js';
import type { ApprovalStore, FolderStore, PolicyStore, SessionStore } from '../domain/ports.js';
import { SqliteApprovalStore } from './approvals.js';
import { SqliteFolderStore } from './folders.js';
import { SqlitePolicyStore } from './policies.js';
import { SqliteSessionStore } from './sessions.js';
import type { ProfileStore, TurnStatsStore } from '../domain/admin/ports.js';
import { SqliteProfileStore, SqliteTurnStatsStore } from './admin.js';
import type { ConversationStore } from '../domain/conversations/ports.js';
import { SqliteConversationStore } from './conversations.js';
import type { NotificationStore } from '../domain/notifications/ports.js';
import { SqliteNotificationStore } from './notifications.js';
import type { UserProfileStore } from '../domain/profile/ports.js';
import type { SecretStore } from '../domain/secrets.js';
import { SqliteUserProfileStore } from './profile.js';
import { SqliteSecretStore } from './secrets.js';
import type { ContextRecordStore } from '../domain/context/ports.js';
import { SqliteContextRecordStore } from './context.js';
import type { McpServerStore } from '../domain/mcp/ports.js';
import { SqliteMcpServerStore } from './mcp.js';
import type { PluginRuleStore } from '../domain/mcp/plugins.js';
import { SqlitePluginRuleStore } from './mcp-plugins.js';
import type { AgentStore } from '../domain/agents/ports.js';
import type { SkillStore } from '../domain/skills/ports.js';
import { SqliteAgentStore } from './agents.js';
import { SqliteSkillStore } from './skills.js';
import type { OAuthStore } from '../domain/oauth/ports.js';
import { SqliteOAuthStore } from './oauth.js';
import type { WebhookStore } from '../domain/webhooks/ports.js';
import { SqliteWebhookStore } from './webhooks.js';
import type { ConnectorStore } from '../domain/connectors/ports.js';
import { SqliteConnectorStore } from './connectors.js';
import type { McpOAuthRowStore } from '../domain/mcp/oauth-vault.js';
import { SqliteMcpOAuthStore } from './mcp-oauth.js';

/** The runtime's table groups (both engines implement every one). */
export interface RuntimeTables {
  sessions: SessionStore; folders: FolderStore; approvals: ApprovalStore; policies: PolicyStore; conversations: ConversationStore;
  notifications: NotificationStore; permissionProfiles: ProfileStore; turnStats: TurnStatsStore; userProfiles: UserProfileStore; secrets: SecretStore;
  contextRecords: ContextRecordStore; agents: AgentStore; skills: SkillStore; mcpServers: McpServerStore; mcpOAuth: McpOAuthRowStore;
  pluginRules: PluginRuleStore; webhooks: WebhookStore; oauth: OAuthStore; connectors: ConnectorStore;
}

/**
 * The runtime's store facade as app.ts uses it, whatever the engine (issue 21 item 1): the table
 * groups, `txAsync`, `ready()`, `isOpen`, `close()`. `openRuntimeStore` (SQLite) and
 * `openPgRuntimeStore` (store/pg/index.ts, PostgreSQL) both return one.
 */
export type RuntimeStore = Readonly<RuntimeTables> & AsyncStoreHandle;

/** The SQLite table groups (their methods answer synchronously). */
export type SqliteRuntimeTables = ReturnType<typeof sqliteTables>;

/** The SQLite facade: `RuntimeStore` plus the synchronous `tx`; its groups keep their synchronous signatures. */
export type SqliteRuntimeStore = Store<SqliteRuntimeTables>;

/**
 * Open (and migrate) the runtime's database.
 * @throws Error when the database cannot be opened or migrated.
 */
export function openRuntimeStore(cfg: { dbDir: string; migrationsDir: string }): SqliteRuntimeStore {
  return openStore({ dbDir: cfg.dbDir, store: 'agent-runtime', migrationsDir: cfg.migrationsDir, vec: false }, sqliteTables);
}

/** Every table group over one open SQLite database (each satisfies its port). */
function sqliteTables(db: Db) {
  return {
    sessions: new SqliteSessionStore(db), folders: new SqliteFolderStore(db),
    approvals: new SqliteApprovalStore(db), policies: new SqlitePolicyStore(db),
    permissionProfiles: new SqliteProfileStore(db), turnStats: new SqliteTurnStatsStore(db),
    conversations: new SqliteConversationStore(db),
    notifications: new SqliteNotificationStore(db),
    userProfiles: new SqliteUserProfileStore(db), secrets: new SqliteSecretStore(db),
    contextRecords: new SqliteContextRecordStore(db),
    mcpServers: new SqliteMcpServerStore(db), mcpOAuth: new SqliteMcpOAuthStore(db), pluginRules: new SqlitePluginRuleStore(db),
    agents: new SqliteAgentStore(db), skills: new SqliteSkillStore(db),
    webhooks: new SqliteWebhookStore(db),
    oauth: new SqliteOAuthStore(db),
    connectors: new SqliteConnectorStore(db),
  } satisfies RuntimeTables;
}
