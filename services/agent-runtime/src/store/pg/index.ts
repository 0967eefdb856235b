/**
 * The runtime's PostgreSQL store (issue 21 item 1): schema `agent_runtime` of the database
 * `SVC_DATABASE_URL` (or `SVC_AGENT_RUNTIME_DATABASE_URL`) names, migrations
 * `migrations/agent-runtime/pg/` (0001 core tables, 0002 integration tables). Returns the same
 * facade as the SQLite opener (`RuntimeStore`: every table group plus the async handle), so app.ts
 * and the domain take either.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import { openPgStore, type PgStore } from '../../../../shared/db/pg/store.js';
import type { PgSettings } from '../../../../shared/db/pg/settings.js';
import type { RuntimeTables } from '../runtime-store.js';
import { PgProfileStore, PgTurnStatsStore } from './admin.js';
import { PgContextRecordStore } from './context.js';
import { PgConversationStore } from './conversations.js';
import { PgApprovalStore, PgPolicyStore } from './core.js';
import { pgIntegrationTables } from './integrations.js';
import { PgNotificationStore } from './notifications.js';
import { PgSecretStore, PgUserProfileStore } from './profile.js';
import { PgFolderStore, PgSessionStore } from './sessions.js';

/** The runtime's store on PostgreSQL: `RuntimeStore` plus the `PgDb`. */
export type PgRuntimeStore = PgStore<RuntimeTables>;

/** The core table groups (sessions, folders, approvals, policies, conversations, notifications, profiles, secrets, context, admin). */
export function pgCoreTables(db: PgDb): Omit<RuntimeTables, keyof ReturnType<typeof pgIntegrationTables>> {
  return {
    sessions: new PgSessionStore(db), folders: new PgFolderStore(db), approvals: new PgApprovalStore(db), policies: new PgPolicyStore(db),
    conversations: new PgConversationStore(db), notifications: new PgNotificationStore(db),
    permissionProfiles: new PgProfileStore(db), turnStats: new PgTurnStatsStore(db),
    userProfiles: new PgUserProfileStore(db), secrets: new PgSecretStore(db), contextRecords: new PgContextRecordStore(db),
  };
}

/**
 * Connect and migrate the `agent_runtime` schema and build every table group.
 * @throws Error when the server cannot be reached or a migration fails (the pool is closed first).
 */
export function openPgRuntimeStore(settings: PgSettings, migrationsDir: string): Promise<PgRuntimeStore> {
  return openPgStore({ settings, service: 'agent-runtime', migrationsDir }, (db): RuntimeTables => ({
    ...pgCoreTables(db),
    // ---- Integration groups (helper B: agents, skills, MCP, OAuth, webhooks, connectors) --------
    ...pgIntegrationTables(db),
  }));
}
