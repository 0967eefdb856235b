/**
 * Connector administration (spec "Connector administration"; issue 18 item 3): create, read,
 * replace, patch and delete connectors, check them, list and choose their surfaces, list their
 * synced documents. Configs are checked per kind here (400 `connector_config_invalid`); an IMAP
 * password is only ever named (`password_secret`, a tenant secret) and resolved by the source
 * factory when a source is opened. Deleting a connector deletes its knowledge documents.
 */
import { ulidFactory } from '../../../../shared/identity/ulid.js';
import { DomainError } from '../../../../shared/kit/domain-error.js';
import type { ConnectorCheck, ConnectorCreate, ConnectorDocument, ConnectorPatch, ConnectorView, Surface } from '../../contracts/connectors.js';
import type { ConnectorOwner, ConnectorRow, ConnectorStore, KnowledgeSink, SourceFactory } from './ports.js';

const newId = ulidFactory();
const SECRET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** 404 `connector_not_found`. */
export function connectorNotFound(): DomainError { return new DomainError('connector_not_found', 'no such connector'); }

function invalid(message: string): DomainError { return new DomainError('connector_config_invalid', message); }

/**
 * The config of `kind`, checked and normalised: folder `{path}` (absolute); imap `{host, port, tls,
 * username, password_secret | access_token_secret, mailboxes?}` (exactly one credential, each naming a
 * tenant secret: a password, or an OAuth 2.0 access token the server takes through SASL XOAUTH2 /
 * OAUTHBEARER). @throws DomainError `connector_config_invalid`.
 */
export function checkConfig(kind: ConnectorRow['kind'], config: Record<string, unknown>): Record<string, unknown> {
  if (kind === 'folder') {
    const path = config.path;
    if (typeof path !== 'string' || !path.trim()) throw invalid('a folder connector needs config.path');
    if (!path.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(path)) throw invalid('config.path must be an absolute path');
    const extra = Object.keys(config).filter((k) => k !== 'path');
    if (extra.length) throw invalid(`unknown folder config field: ${extra[0]}`);
    return { path };
  }
  const { host, port, tls, username, mailboxes } = config;
  const credential = config.access_token_secret !== undefined ? 'access_token_secret' : 'password_secret';
  if (config.access_token_secret !== undefined && config.password_secret !== undefined) throw invalid('give config.password_secret or config.access_token_secret, not both');
  const secret = config[credential];
  if (typeof host !== 'string' || !host.trim() || host.length > 255) throw invalid('an imap connector needs config.host');
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) throw invalid('config.port must be an integer 1-65535');
  if (typeof tls !== 'boolean') throw invalid('config.tls must be true or false');
  if (typeof username !== 'string' || !username || username.length > 320) throw invalid('an imap connector needs config.username');
  if (typeof secret !== 'string' || !SECRET_NAME.test(secret)) throw invalid(`config.${credential} must name a tenant secret`);
  if (mailboxes !== undefined && (!Array.isArray(mailboxes) || mailboxes.some((m) => typeof m !== 'string' || !m || m.length > 1000))) {
    throw invalid('config.mailboxes must be a list of mailbox names');
  }
  const extra = Object.keys(config).filter((k) => !['host', 'port', 'tls', 'username', 'password_secret', 'access_token_secret', 'mailboxes'].includes(k));
  if (extra.length) throw invalid(`unknown imap config field: ${extra[0]}`);
  return { host, port, tls, username, [credential]: secret, ...(mailboxes ? { mailboxes } : {}) };
}

/** Visibility as the admin chose it; checked so knowledge accepts it (private takes no lists, shared no grants). */
function visibilityOf(b: Pick<ConnectorCreate, 'visibility_mode' | 'audience_tags' | 'user_grants'>): Pick<ConnectorRow, 'visibility_mode' | 'audience_tags' | 'user_grants'> {
  const mode = b.visibility_mode ?? 'private';
  const audiences = [...new Set(b.audience_tags ?? [])];
  const grants = [...new Set(b.user_grants ?? [])];
  if (mode === 'private' && (audiences.length || grants.length)) throw invalid('private connectors take no audience_tags or user_grants (use restricted or shared)');
  if (mode === 'shared' && grants.length) throw invalid('user_grants apply to restricted connectors only');
  if (mode === 'restricted' && !audiences.length && !grants.length) throw invalid('a restricted connector needs audience_tags or user_grants');
  return { visibility_mode: mode, audience_tags: audiences, user_grants: grants };
}

/** The answer shape of a connector (the config holds no secret value, only its name). */
export function connectorView(r: ConnectorRow): ConnectorView {
  return {
    id: r.id, kind: r.kind, name: r.name, config: r.config, visibility_mode: r.visibility_mode, audience_tags: r.audience_tags, user_grants: r.user_grants,
    schedule_minutes: r.schedule_minutes, status: r.status, last_sync_at: r.last_sync_at, last_error: r.last_error, created_at: r.created_at, updated_at: r.updated_at,
  };
}

/** Dependencies of the administration. */
export interface ConnectorAdminDeps {
  store: ConnectorStore;
  open: SourceFactory;
  sink: KnowledgeSink;
  log: { warn(obj: object, msg: string): void };
}

/** Connector administration use cases (callers are admins: the routes check the role). */
export class ConnectorAdmin {
  constructor(private readonly d: ConnectorAdminDeps) {}

  /** The tenant's connectors. */
  async list(tenantId: string): Promise<ConnectorView[]> { return (await this.d.store.list(tenantId)).map(connectorView); }

  /** A connector row. @throws DomainError `connector_not_found`. */
  async row(tenantId: string, id: string): Promise<ConnectorRow> {
    const r = await this.d.store.get(tenantId, id);
    if (!r) throw connectorNotFound();
    return r;
  }

  /** One connector. @throws DomainError `connector_not_found`. */
  async get(tenantId: string, id: string): Promise<ConnectorView> { return connectorView(await this.row(tenantId, id)); }

  /** Create a connector owned by `owner`. @throws DomainError `connector_config_invalid`. */
  async create(tenantId: string, owner: ConnectorOwner, b: ConnectorCreate): Promise<ConnectorView> {
    const now = new Date().toISOString();
    const row: ConnectorRow = {
      id: newId(), tenant_id: tenantId, kind: b.kind, name: b.name.trim() || b.kind, config: checkConfig(b.kind, b.config), ...visibilityOf(b),
      schedule_minutes: b.schedule_minutes ?? null, selected: null, owner, status: 'idle', last_sync_at: null, last_error: null, created_at: now, updated_at: now,
    };
    await this.d.store.put(row);
    return connectorView(row);
  }

  /**
   * Replace (PUT) or patch a connector; the kind never changes. A visibility change applies to
   * documents synced from then on (a re-sync of changed items). @throws `connector_not_found`, `connector_config_invalid`.
   */
  async update(tenantId: string, id: string, b: ConnectorPatch & { kind?: ConnectorRow['kind'] }, replace: boolean): Promise<ConnectorView> {
    const cur = await this.row(tenantId, id);
    if (b.kind && b.kind !== cur.kind) throw invalid('the kind of a connector cannot change');
    const vis = replace || b.visibility_mode !== undefined || b.audience_tags !== undefined || b.user_grants !== undefined
      ? visibilityOf(replace ? b : { visibility_mode: b.visibility_mode ?? cur.visibility_mode, audience_tags: b.audience_tags ?? cur.audience_tags, user_grants: b.user_grants ?? cur.user_grants })
      : {};
    const next: ConnectorRow = {
      ...cur, ...vis,
      name: b.name !== undefined ? b.name.trim() || cur.name : cur.name,
      config: b.config !== undefined ? checkConfig(cur.kind, b.config) : cur.config,
      schedule_minutes: b.schedule_minutes !== undefined ? b.schedule_minutes : replace ? null : cur.schedule_minutes,
      updated_at: new Date().toISOString(),
    };
    await this.d.store.put(next);
    return connectorView(next);
  }

  /** Delete a connector and its knowledge documents. @throws DomainError `connector_not_found`. */
  async delete(tenantId: string, id: string): Promise<void> {
    const cur = await this.row(tenantId, id);
    for (const doc of await this.d.store.documents(tenantId, id)) {
      if (!doc.document_id) continue;
      try { await this.d.sink.remove(tenantId, cur.owner, doc.document_id); } catch (err) {
        this.d.log.warn({ connector_id: id, document_id: doc.document_id, err: (err as Error).message }, 'a connector document could not be deleted from knowledge');
      }
    }
    await this.d.store.deleteDocuments(tenantId, id);
    await this.d.store.delete(tenantId, id);
  }

  /** Test the connection (never throws for an unreachable source: `{ok: false, error}`). @throws `connector_not_found`. */
  async check(tenantId: string, id: string): Promise<ConnectorCheck> {
    const c = await this.row(tenantId, id);
    let src;
    try { src = await this.d.open(c); } catch (err) {
      return { ok: false, error: (err as Error).message, detail: 'the connector could not be opened' };
    }
    try { return await src.check(); } finally { await src.close().catch(() => {}); }
  }

  /** What the connector can reach and which parts are selected. @throws `connector_not_found`, `connector_config_invalid` (source unreachable). */
  async surfaces(tenantId: string, id: string): Promise<Surface[]> {
    const c = await this.row(tenantId, id);
    const src = await this.d.open(c);
    try { return await src.surfaces(c.selected); } catch (err) {
      throw invalid(`the source cannot be listed: ${(err as Error).message}`);
    } finally { await src.close().catch(() => {}); }
  }

  /** Choose the surfaces to sync (replaces the selection). @throws `connector_not_found`, `connector_config_invalid` (an unknown id). */
  async select(tenantId: string, id: string, selected: string[]): Promise<Surface[]> {
    const c = await this.row(tenantId, id);
    const known = await this.surfaces(tenantId, id);
    const unknown = selected.find((s) => !known.some((k) => k.id === s));
    if (unknown !== undefined) throw invalid(`unknown surface: ${unknown}`);
    const sel = [...new Set(selected)];
    await this.d.store.put({ ...c, selected: sel, updated_at: new Date().toISOString() });
    return known.map((k) => ({ ...k, selected: sel.includes(k.id) }));
  }

  /** The synced items of a connector. @throws `connector_not_found`. */
  async documents(tenantId: string, id: string): Promise<ConnectorDocument[]> {
    await this.row(tenantId, id);
    return (await this.d.store.documents(tenantId, id)).map((r) => ({ path_or_uid: r.path_or_uid, document_id: r.document_id, status: r.status, last_error: r.last_error, synced_at: r.synced_at }));
  }
}
