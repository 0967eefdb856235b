/**
 * Knowledge connectors over SQLite (tables `connectors`, `connector_documents`, `connector_jobs`,
 * migration 0012; issue 18 item 3). Lists and config are kept as JSON columns.
 */
import type { Db } from '../../../shared/db/open.js';
import type { ConnectorRow, ConnectorStore, DocumentRow, JobRow } from '../domain/connectors/ports.js';

/** A `connectors` row as both engines store it (JSON text columns). */
export interface ConnectorRaw {
  id: string; tenant_id: string; kind: ConnectorRow['kind']; name: string; config_json: string; visibility_mode: ConnectorRow['visibility_mode'];
  audience_tags_json: string; user_grants_json: string; schedule_minutes: number | null; selected_json: string | null; owner_json: string;
  status: string; last_sync_at: string | null; last_error: string | null; created_at: string; updated_at: string;
}

/** Decode a `connectors` row (shared with store/pg/connectors.ts). */
export const connectorFromRaw = (r: ConnectorRaw): ConnectorRow => ({
  id: r.id, tenant_id: r.tenant_id, kind: r.kind, name: r.name, config: JSON.parse(r.config_json) as Record<string, unknown>, visibility_mode: r.visibility_mode,
  audience_tags: JSON.parse(r.audience_tags_json) as string[], user_grants: JSON.parse(r.user_grants_json) as string[], schedule_minutes: r.schedule_minutes,
  selected: r.selected_json ? JSON.parse(r.selected_json) as string[] : null, owner: JSON.parse(r.owner_json) as ConnectorRow['owner'],
  status: r.status, last_sync_at: r.last_sync_at, last_error: r.last_error, created_at: r.created_at, updated_at: r.updated_at,
});

/** `ConnectorStore` over one open database. */
export class SqliteConnectorStore implements ConnectorStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      get: db.prepare<[string, string], ConnectorRaw>('SELECT * FROM connectors WHERE tenant_id = ? AND id = ?'),
      list: db.prepare<[string], ConnectorRaw>('SELECT * FROM connectors WHERE tenant_id = ? ORDER BY name COLLATE NOCASE, id'),
      scheduled: db.prepare<[], ConnectorRaw>('SELECT * FROM connectors WHERE schedule_minutes IS NOT NULL'),
      put: db.prepare(`INSERT INTO connectors (id, tenant_id, kind, name, config_json, visibility_mode, audience_tags_json, user_grants_json, schedule_minutes,
          selected_json, owner_json, status, last_sync_at, last_error, created_at, updated_at)
        VALUES (@id, @tenant_id, @kind, @name, @config_json, @visibility_mode, @audience_tags_json, @user_grants_json, @schedule_minutes,
          @selected_json, @owner_json, @status, @last_sync_at, @last_error, @created_at, @updated_at)
        ON CONFLICT (tenant_id, id) DO UPDATE SET name = excluded.name, config_json = excluded.config_json, visibility_mode = excluded.visibility_mode,
          audience_tags_json = excluded.audience_tags_json, user_grants_json = excluded.user_grants_json, schedule_minutes = excluded.schedule_minutes,
          selected_json = excluded.selected_json, updated_at = excluded.updated_at`),
      delete: db.prepare('DELETE FROM connectors WHERE tenant_id = ? AND id = ?'),
      status: db.prepare('UPDATE connectors SET status = ?, last_error = ?, last_sync_at = ? WHERE tenant_id = ? AND id = ?'),
      documents: db.prepare<[string, string], DocumentRow>('SELECT * FROM connector_documents WHERE tenant_id = ? AND connector_id = ? ORDER BY path_or_uid'),
      putDocument: db.prepare(`INSERT INTO connector_documents (tenant_id, connector_id, path_or_uid, item_key, document_id, status, last_error, size, mtime_ms, sha256, synced_at)
        VALUES (@tenant_id, @connector_id, @path_or_uid, @item_key, @document_id, @status, @last_error, @size, @mtime_ms, @sha256, @synced_at)
        ON CONFLICT (tenant_id, connector_id, path_or_uid) DO UPDATE SET item_key = excluded.item_key, document_id = excluded.document_id, status = excluded.status,
          last_error = excluded.last_error, size = excluded.size, mtime_ms = excluded.mtime_ms, sha256 = excluded.sha256, synced_at = excluded.synced_at`),
      deleteItem: db.prepare('DELETE FROM connector_documents WHERE tenant_id = ? AND connector_id = ? AND item_key = ?'),
      deleteDocuments: db.prepare('DELETE FROM connector_documents WHERE tenant_id = ? AND connector_id = ?'),
      job: db.prepare<[string, string], JobRow>('SELECT * FROM connector_jobs WHERE tenant_id = ? AND id = ?'),
      jobs: db.prepare<[string, number], JobRow>('SELECT * FROM connector_jobs WHERE tenant_id = ? ORDER BY created_at DESC, id DESC LIMIT ?'),
      putJob: db.prepare(`INSERT INTO connector_jobs (id, tenant_id, connector_id, state, total, done, failed, started_at, finished_at, error, created_at)
        VALUES (@id, @tenant_id, @connector_id, @state, @total, @done, @failed, @started_at, @finished_at, @error, @created_at)
        ON CONFLICT (id) DO UPDATE SET state = excluded.state, total = excluded.total, done = excluded.done, failed = excluded.failed,
          started_at = excluded.started_at, finished_at = excluded.finished_at, error = excluded.error
        WHERE connector_jobs.state <> 'cancelled' OR excluded.state = 'cancelled'`),
      unfinished: db.prepare<[], JobRow>("SELECT * FROM connector_jobs WHERE state IN ('queued', 'running') ORDER BY created_at, id"),
      active: db.prepare<[string, string | null], JobRow>("SELECT * FROM connector_jobs WHERE tenant_id = ? AND connector_id IS ? AND state IN ('queued', 'running') ORDER BY created_at LIMIT 1"),
    };
  }

  get(tenantId: string, id: string): ConnectorRow | undefined {
    const r = this.s.get.get(tenantId, id);
    return r ? connectorFromRaw(r) : undefined;
  }

  list(tenantId: string): ConnectorRow[] { return this.s.list.all(tenantId).map(connectorFromRaw); }

  scheduled(): ConnectorRow[] { return this.s.scheduled.all().map(connectorFromRaw); }

  put(row: ConnectorRow): void {
    const { config, audience_tags, user_grants, selected, owner, ...rest } = row;
    this.s.put.run({
      ...rest, config_json: JSON.stringify(config), audience_tags_json: JSON.stringify(audience_tags), user_grants_json: JSON.stringify(user_grants),
      selected_json: selected ? JSON.stringify(selected) : null, owner_json: JSON.stringify(owner),
    });
  }

  delete(tenantId: string, id: string): boolean { return this.s.delete.run(tenantId, id).changes > 0; }

  setStatus(tenantId: string, id: string, status: string, lastError: string | null, lastSyncAt: string | null): void {
    this.s.status.run(status, lastError, lastSyncAt, tenantId, id);
  }

  documents(tenantId: string, connectorId: string): DocumentRow[] { return this.s.documents.all(tenantId, connectorId); }

  putDocument(row: DocumentRow): void { this.s.putDocument.run(row); }

  deleteItem(tenantId: string, connectorId: string, itemKey: string): void { this.s.deleteItem.run(tenantId, connectorId, itemKey); }

  deleteDocuments(tenantId: string, connectorId: string): void { this.s.deleteDocuments.run(tenantId, connectorId); }

  job(tenantId: string, id: string): JobRow | undefined { return this.s.job.get(tenantId, id); }

  jobs(tenantId: string, limit: number): JobRow[] { return this.s.jobs.all(tenantId, limit); }

  putJob(row: JobRow): void { this.s.putJob.run(row); }

  unfinishedJobs(): JobRow[] { return this.s.unfinished.all(); }

  activeJob(tenantId: string, connectorId: string | null): JobRow | undefined { return this.s.active.get(tenantId, connectorId); }
}
