/**
 * Knowledge connectors on PostgreSQL (tables `connectors`, `connector_documents`, `connector_jobs`,
 * migrations/agent-runtime/pg/0002_integrations.sql; issue 21 item 1): the twin of store/connectors.ts
 * (lists and config as JSON text, sizes and mtimes as bigint).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { ConnectorRow, ConnectorStore, DocumentRow, JobRow } from '../../domain/connectors/ports.js';
import { nocase } from './agents.js';
import { connectorFromRaw as fromRaw, type ConnectorRaw as Raw } from '../connectors.js';


const CONNECTOR = ['id', 'tenant_id', 'kind', 'name', 'config_json', 'visibility_mode', 'audience_tags_json', 'user_grants_json', 'schedule_minutes', 'selected_json',
  'owner_json', 'status', 'last_sync_at', 'last_error', 'created_at', 'updated_at'] as const;
const DOCUMENT = ['tenant_id', 'connector_id', 'path_or_uid', 'item_key', 'document_id', 'status', 'last_error', 'size', 'mtime_ms', 'sha256', 'synced_at'] as const;
const JOB = ['id', 'tenant_id', 'connector_id', 'state', 'total', 'done', 'failed', 'started_at', 'finished_at', 'error', 'created_at'] as const;
const params = (cols: readonly string[]): string => cols.map((_, i) => `$${i + 1}`).join(', ');
const SEL_CONNECTOR = `SELECT ${CONNECTOR.join(', ')} FROM connectors`;
const SEL_JOB = `SELECT ${JOB.join(', ')} FROM connector_jobs`;
const C = 'COLLATE "C"';

/** `ConnectorStore` over one service schema. */
export class PgConnectorStore implements ConnectorStore {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string, id: string): Promise<ConnectorRow | undefined> {
    const [r] = await this.db.query<Raw>(`${SEL_CONNECTOR} WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    return r ? fromRaw(r) : undefined;
  }

  async list(tenantId: string): Promise<ConnectorRow[]> {
    return (await this.db.query<Raw>(`${SEL_CONNECTOR} WHERE tenant_id = $1 ORDER BY ${nocase('name')}, id ${C}`, [tenantId])).map(fromRaw);
  }

  async scheduled(): Promise<ConnectorRow[]> {
    return (await this.db.query<Raw>(`${SEL_CONNECTOR} WHERE schedule_minutes IS NOT NULL ORDER BY tenant_id ${C}, id ${C}`)).map(fromRaw);
  }

  async put(row: ConnectorRow): Promise<void> {
    const { config, audience_tags, user_grants, selected, owner, ...rest } = row;
    const raw: Raw = {
      ...rest, config_json: JSON.stringify(config), audience_tags_json: JSON.stringify(audience_tags), user_grants_json: JSON.stringify(user_grants),
      selected_json: selected ? JSON.stringify(selected) : null, owner_json: JSON.stringify(owner),
    };
    await this.db.exec(`INSERT INTO connectors (${CONNECTOR.join(', ')}) VALUES (${params(CONNECTOR)})
      ON CONFLICT (tenant_id, id) DO UPDATE SET name = excluded.name, config_json = excluded.config_json, visibility_mode = excluded.visibility_mode,
        audience_tags_json = excluded.audience_tags_json, user_grants_json = excluded.user_grants_json, schedule_minutes = excluded.schedule_minutes,
        selected_json = excluded.selected_json, updated_at = excluded.updated_at`, CONNECTOR.map((c) => raw[c]));
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM connectors WHERE tenant_id = $1 AND id = $2', [tenantId, id])) > 0;
  }

  async setStatus(tenantId: string, id: string, status: string, lastError: string | null, lastSyncAt: string | null): Promise<void> {
    await this.db.exec('UPDATE connectors SET status = $1, last_error = $2, last_sync_at = $3 WHERE tenant_id = $4 AND id = $5', [status, lastError, lastSyncAt, tenantId, id]);
  }

  async documents(tenantId: string, connectorId: string): Promise<DocumentRow[]> {
    return this.db.query<DocumentRow>(`SELECT ${DOCUMENT.join(', ')} FROM connector_documents WHERE tenant_id = $1 AND connector_id = $2 ORDER BY path_or_uid ${C}`, [tenantId, connectorId]);
  }

  async putDocument(row: DocumentRow): Promise<void> {
    await this.db.exec(`INSERT INTO connector_documents (${DOCUMENT.join(', ')}) VALUES (${params(DOCUMENT)})
      ON CONFLICT (tenant_id, connector_id, path_or_uid) DO UPDATE SET item_key = excluded.item_key, document_id = excluded.document_id, status = excluded.status,
        last_error = excluded.last_error, size = excluded.size, mtime_ms = excluded.mtime_ms, sha256 = excluded.sha256, synced_at = excluded.synced_at`,
    DOCUMENT.map((c) => row[c]));
  }

  async deleteItem(tenantId: string, connectorId: string, itemKey: string): Promise<void> {
    await this.db.exec('DELETE FROM connector_documents WHERE tenant_id = $1 AND connector_id = $2 AND item_key = $3', [tenantId, connectorId, itemKey]);
  }

  async deleteDocuments(tenantId: string, connectorId: string): Promise<void> {
    await this.db.exec('DELETE FROM connector_documents WHERE tenant_id = $1 AND connector_id = $2', [tenantId, connectorId]);
  }

  async job(tenantId: string, id: string): Promise<JobRow | undefined> {
    return (await this.db.query<JobRow>(`${SEL_JOB} WHERE tenant_id = $1 AND id = $2`, [tenantId, id]))[0];
  }

  async jobs(tenantId: string, limit: number): Promise<JobRow[]> {
    return this.db.query<JobRow>(`${SEL_JOB} WHERE tenant_id = $1 ORDER BY created_at ${C} DESC, id ${C} DESC LIMIT $2`, [tenantId, limit]);
  }

  async putJob(row: JobRow): Promise<void> {
    await this.db.exec(`INSERT INTO connector_jobs (${JOB.join(', ')}) VALUES (${params(JOB)})
      ON CONFLICT (id) DO UPDATE SET state = excluded.state, total = excluded.total, done = excluded.done, failed = excluded.failed,
        started_at = excluded.started_at, finished_at = excluded.finished_at, error = excluded.error
      WHERE connector_jobs.state <> 'cancelled' OR excluded.state = 'cancelled'`, JOB.map((c) => row[c]));
  }

  async unfinishedJobs(): Promise<JobRow[]> {
    return this.db.query<JobRow>(`${SEL_JOB} WHERE state IN ('queued', 'running') ORDER BY created_at ${C}, id ${C}`);
  }

  async activeJob(tenantId: string, connectorId: string | null): Promise<JobRow | undefined> {
    return (await this.db.query<JobRow>(`${SEL_JOB} WHERE tenant_id = $1 AND connector_id IS NOT DISTINCT FROM $2 AND state IN ('queued', 'running')
      ORDER BY created_at ${C}, id ${C} LIMIT 1`, [tenantId, connectorId]))[0];
  }
}
