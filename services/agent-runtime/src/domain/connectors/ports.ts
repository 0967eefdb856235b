/**
 * Ports of the knowledge connectors (issue 18 item 3): the store of connectors, their per-item
 * state and sync jobs; a source (folder or IMAP, implemented in clients/); the knowledge sink.
 */
import type { Awaitable } from '../../../../shared/db/async-store.js';
import type { ConnectorCheck, ConnectorKind, Surface } from '../../contracts/connectors.js';

/** Who the connector's documents belong to: the admin that created it (knowledge calls run as them). */
export interface ConnectorOwner { id: string; roles: string[]; groups: string[] }

/** A stored connector. */
export interface ConnectorRow {
  id: string;
  tenant_id: string;
  kind: ConnectorKind;
  name: string;
  config: Record<string, unknown>;
  visibility_mode: 'private' | 'restricted' | 'shared';
  audience_tags: string[];
  user_grants: string[];
  schedule_minutes: number | null;
  /** Selected surface ids; null = all. */
  selected: string[] | null;
  owner: ConnectorOwner;
  status: string;
  last_sync_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** One synced item (a file, a message, an attachment) and its fingerprint. */
export interface DocumentRow {
  tenant_id: string;
  connector_id: string;
  /** A file's relative path; a message's `mailbox/uidvalidity/uid` (attachments add `#n:name`). */
  path_or_uid: string;
  /** The source item it came from (a message's attachments share the message's key). */
  item_key: string;
  document_id: string | null;
  status: 'indexed' | 'failed';
  last_error: string | null;
  size: number | null;
  mtime_ms: number | null;
  sha256: string | null;
  synced_at: string;
}

/** A persisted sync job. */
export interface JobRow {
  id: string;
  tenant_id: string;
  connector_id: string | null;
  state: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  total: number;
  done: number;
  failed: number;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
  created_at: string;
}

/** Persistence of connectors, their documents and jobs. */
export interface ConnectorStore {
  get(tenantId: string, id: string): Awaitable<ConnectorRow | undefined>;
  list(tenantId: string): Awaitable<ConnectorRow[]>;
  /** Every connector with a schedule, all tenants. */
  scheduled(): Awaitable<ConnectorRow[]>;
  put(row: ConnectorRow): Awaitable<void>;
  delete(tenantId: string, id: string): Awaitable<boolean>;
  setStatus(tenantId: string, id: string, status: string, lastError: string | null, lastSyncAt: string | null): Awaitable<void>;
  documents(tenantId: string, connectorId: string): Awaitable<DocumentRow[]>;
  putDocument(row: DocumentRow): Awaitable<void>;
  /** Delete every row of `itemKey`. */
  deleteItem(tenantId: string, connectorId: string, itemKey: string): Awaitable<void>;
  deleteDocuments(tenantId: string, connectorId: string): Awaitable<void>;
  job(tenantId: string, id: string): Awaitable<JobRow | undefined>;
  /** The tenant's newest jobs, at most `limit` (issue 19 item 5: `GET /v1/admin/jobs`). */
  jobs(tenantId: string, limit: number): Awaitable<JobRow[]>;
  /**
   * Insert or update a job. A `cancelled` job stays cancelled: a later write of another state is
   * ignored (a cancel written through another runtime wins over the running job's progress writes).
   */
  putJob(row: JobRow): Awaitable<void>;
  /** Jobs `queued` or `running` (resumed at start), oldest first. */
  unfinishedJobs(): Awaitable<JobRow[]>;
  /** The unfinished job of a connector, if any. */
  activeJob(tenantId: string, connectorId: string | null): Awaitable<JobRow | undefined>;
}

/** A current item of the source: enough to tell new, changed and unchanged apart. */
export interface SourceItem {
  key: string;
  size: number | null;
  mtime_ms: number | null;
}

/** One document to ingest from an item. */
export interface SourcePart {
  path_or_uid: string;
  filename: string;
  title: string;
  data: Buffer;
}

/** What an item fetch gives: its parts and its content hash (folder: the file's sha256). */
export interface FetchedItem { sha256: string | null; parts: SourcePart[] }

/** A connector's source, opened for one check, surface listing or sync. */
export interface ConnectorSource {
  check(): Promise<ConnectorCheck>;
  surfaces(selected: string[] | null): Promise<Surface[]>;
  /** Every current item in the selected surfaces. @throws Error when the source cannot be read. */
  list(selected: string[] | null): Promise<SourceItem[]>;
  /** The content of one item; null when it vanished meanwhile. */
  fetch(item: SourceItem): Promise<FetchedItem | null>;
  /** True for sources whose items never change in place (a message): listed items already stored are unchanged. */
  readonly immutable: boolean;
  close(): Promise<void>;
}

/** Opens a source for a connector (resolves its secret). @throws DomainError `connector_config_invalid`. */
export type SourceFactory = (c: ConnectorRow) => Promise<ConnectorSource>;

/** Visibility given to every document of a connector. */
export interface DocumentVisibility { visibility_mode: ConnectorRow['visibility_mode']; audience_tags: string[]; user_grants: string[] }

/** Outcome of one ingest: the document id, and the parse error when it failed (the document then keeps `last_error`). */
export interface IngestOutcome { document_id: string | null; error: string | null }

/** The knowledge service as the connectors see it (calls run as the connector's owner). */
export interface KnowledgeSink {
  /** Ingest a file and set its visibility. @throws Error when knowledge cannot be reached (the sync item fails). */
  ingest(tenantId: string, owner: ConnectorOwner, part: SourcePart, v: DocumentVisibility): Promise<IngestOutcome>;
  /** Delete a document (absent is fine). @throws Error when knowledge cannot be reached. */
  remove(tenantId: string, owner: ConnectorOwner, documentId: string): Promise<void>;
}
