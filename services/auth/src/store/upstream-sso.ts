/**
 * Upstream SSO tables (migrations/auth/0006_upstream_sso.sql; issue 15 item 2): `upstream_idps`,
 * `upstream_links`, `upstream_broker_states`. The client secret reaches this store already sealed
 * (`client_secret_enc`, see `upstream-secret-key.ts`); broker states are stored by the sha256 of the
 * state, never the state itself.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../../shared/db/open.js';
import type {
  BrokerStateRecord, BrokerStateStore, UpstreamIdpRecord, UpstreamIdpStore, UpstreamLinkRecord, UpstreamLinkStore,
} from '../domain/upstream-broker.js';

interface IdpRow {
  alias: string; issuer: string; client_id: string; client_secret_enc: string; scopes: string; claims: string;
  display_name: string | null; enabled: number; created_at: string; updated_at: string;
}

const idpOf = (r: IdpRow): UpstreamIdpRecord => ({
  ...r, scopes: JSON.parse(r.scopes) as string[], claims: JSON.parse(r.claims) as UpstreamIdpRecord['claims'], enabled: r.enabled === 1,
});
const idpRow = (r: UpstreamIdpRecord): IdpRow => ({ ...r, scopes: JSON.stringify(r.scopes), claims: JSON.stringify(r.claims), enabled: r.enabled ? 1 : 0 });

/** SQLite implementation of `UpstreamIdpStore`. */
export class SqliteUpstreamIdpStore implements UpstreamIdpStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare<IdpRow>(`INSERT INTO upstream_idps (alias, issuer, client_id, client_secret_enc, scopes, claims, display_name, enabled, created_at, updated_at)
        VALUES (@alias, @issuer, @client_id, @client_secret_enc, @scopes, @claims, @display_name, @enabled, @created_at, @updated_at) ON CONFLICT DO NOTHING`),
      save: db.prepare<IdpRow>(`UPDATE upstream_idps SET issuer = @issuer, client_id = @client_id, client_secret_enc = @client_secret_enc, scopes = @scopes,
        claims = @claims, display_name = @display_name, enabled = @enabled, updated_at = @updated_at WHERE alias = @alias`),
      get: db.prepare<[string], IdpRow>('SELECT * FROM upstream_idps WHERE alias = ?'),
      list: db.prepare<[], IdpRow>('SELECT * FROM upstream_idps ORDER BY alias'),
      remove: db.prepare<[string]>('DELETE FROM upstream_idps WHERE alias = ?'),
    };
  }

  insert(rec: UpstreamIdpRecord): boolean { return this.q.insert.run(idpRow(rec)).changes === 1; }
  save(rec: UpstreamIdpRecord): void { this.q.save.run(idpRow(rec)); }
  get(alias: string): UpstreamIdpRecord | null { const r = this.q.get.get(alias); return r ? idpOf(r) : null; }
  list(): UpstreamIdpRecord[] { return this.q.list.all().map(idpOf); }
  remove(alias: string): boolean { return this.q.remove.run(alias).changes === 1; }
}

interface LinkRow {
  upstream_iss: string; upstream_sub: string; user_id: string; alias: string; preferred_username: string | null;
  groups: string; created_at: string; last_login_at: string;
}

const linkOf = (r: LinkRow): UpstreamLinkRecord => ({ ...r, groups: JSON.parse(r.groups) as string[] });

/** SQLite implementation of `UpstreamLinkStore`. */
export class SqliteUpstreamLinkStore implements UpstreamLinkStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      put: db.prepare<LinkRow>(`INSERT INTO upstream_links (upstream_iss, upstream_sub, user_id, alias, preferred_username, groups, created_at, last_login_at)
        VALUES (@upstream_iss, @upstream_sub, @user_id, @alias, @preferred_username, @groups, @created_at, @last_login_at)
        ON CONFLICT (upstream_iss, upstream_sub) DO UPDATE SET alias = excluded.alias, preferred_username = excluded.preferred_username,
          groups = excluded.groups, last_login_at = excluded.last_login_at`),
      get: db.prepare<[string, string], LinkRow>('SELECT * FROM upstream_links WHERE upstream_iss = ? AND upstream_sub = ?'),
      byUser: db.prepare<[string], LinkRow>('SELECT * FROM upstream_links WHERE user_id = ? ORDER BY last_login_at DESC'),
    };
  }

  put(rec: UpstreamLinkRecord): void { this.q.put.run({ ...rec, groups: JSON.stringify(rec.groups) }); }
  get(iss: string, sub: string): UpstreamLinkRecord | null { const r = this.q.get.get(iss, sub); return r ? linkOf(r) : null; }
  byUser(userId: string): UpstreamLinkRecord[] { return this.q.byUser.all(userId).map(linkOf); }
}

interface StateRow {
  state: string; nonce: string; code_verifier: string; interaction_uid: string; alias: string; expires_at: number; used_at: number | null;
}

const digest = (state: string): string => createHash('sha256').update(state).digest('hex');

/** SQLite implementation of `BrokerStateStore` (single use: `take` marks the row used atomically). */
export class SqliteBrokerStateStore implements BrokerStateStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare<StateRow>(`INSERT INTO upstream_broker_states (state, nonce, code_verifier, interaction_uid, alias, expires_at, used_at)
        VALUES (@state, @nonce, @code_verifier, @interaction_uid, @alias, @expires_at, @used_at)`),
      take: db.prepare<[number, string], StateRow>('UPDATE upstream_broker_states SET used_at = ? WHERE state = ? AND used_at IS NULL RETURNING *'),
      prune: db.prepare<[number]>('DELETE FROM upstream_broker_states WHERE expires_at < ?'),
    };
  }

  insert(rec: BrokerStateRecord): void { this.q.insert.run({ ...rec, state: digest(rec.state) }); }
  take(state: string, now: number): BrokerStateRecord | null {
    const r = this.q.take.get(now, digest(state));
    return r ? { ...r, state } : null;
  }
  prune(before: number): void { this.q.prune.run(before); }
}
