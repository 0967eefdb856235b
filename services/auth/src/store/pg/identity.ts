/**
 * PostgreSQL table groups of federated identity and the sign-in log (issue 21 item 1;
 * migrations/auth/pg/0001_init.sql): `directory_accounts`, `upstream_idps`, `upstream_links`,
 * `upstream_broker_states`, `sign_ins`, and the embedded IdP's `idp_models`. Same statements,
 * ordering and conflict rules as the SQLite stores beside; broker states are keyed by sha256 of the state.
 */
import { createHash } from 'node:crypto';
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { DirectoryAccountRecord, DirectoryAccountStore } from '../../domain/directory-login.js';
import type { SignInMethod, SignInPosition, SignInRecord, SignInSecondFactor, SignInStore } from '../../domain/sign-in-log.js';
import type {
  BrokerStateRecord, BrokerStateStore, UpstreamIdpRecord, UpstreamIdpStore, UpstreamLinkRecord, UpstreamLinkStore,
} from '../../domain/upstream-broker.js';
import type { IdpModelRow, IdpModelStore } from '../../idp/model-store.js';

/** PostgreSQL implementation of `DirectoryAccountStore`. */
export class PgDirectoryAccountStore implements DirectoryAccountStore {
  constructor(private readonly db: PgDb) {}

  async put(r: DirectoryAccountRecord): Promise<void> {
    await this.db.exec(`INSERT INTO directory_accounts (user_id, dn, username, groups, synced_at) VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (user_id) DO UPDATE SET dn = excluded.dn, username = excluded.username, groups = excluded.groups, synced_at = excluded.synced_at`,
    [r.user_id, r.dn, r.username, JSON.stringify(r.groups), r.synced_at]);
  }
  async get(userId: string): Promise<DirectoryAccountRecord | null> {
    const [r] = await this.db.query<Omit<DirectoryAccountRecord, 'groups'> & { groups: string }>('SELECT * FROM directory_accounts WHERE user_id = $1', [userId]);
    return r ? { ...r, groups: JSON.parse(r.groups) as string[] } : null;
  }
}

type IdpRow = Omit<UpstreamIdpRecord, 'scopes' | 'claims'> & { scopes: string; claims: string };
const idpOf = (r: IdpRow): UpstreamIdpRecord => ({
  ...r, scopes: JSON.parse(r.scopes) as string[], claims: JSON.parse(r.claims) as UpstreamIdpRecord['claims'],
});

/** PostgreSQL implementation of `UpstreamIdpStore`. */
export class PgUpstreamIdpStore implements UpstreamIdpStore {
  constructor(private readonly db: PgDb) {}

  async insert(r: UpstreamIdpRecord): Promise<boolean> {
    return (await this.db.exec(`INSERT INTO upstream_idps (alias, issuer, client_id, client_secret_enc, scopes, claims, display_name, enabled, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
    [r.alias, r.issuer, r.client_id, r.client_secret_enc, JSON.stringify(r.scopes), JSON.stringify(r.claims), r.display_name, r.enabled, r.created_at, r.updated_at])) === 1;
  }
  async save(r: UpstreamIdpRecord): Promise<void> {
    await this.db.exec(`UPDATE upstream_idps SET issuer = $1, client_id = $2, client_secret_enc = $3, scopes = $4, claims = $5, display_name = $6,
      enabled = $7, updated_at = $8 WHERE alias = $9`,
    [r.issuer, r.client_id, r.client_secret_enc, JSON.stringify(r.scopes), JSON.stringify(r.claims), r.display_name, r.enabled, r.updated_at, r.alias]);
  }
  async get(alias: string): Promise<UpstreamIdpRecord | null> {
    const [r] = await this.db.query<IdpRow>('SELECT * FROM upstream_idps WHERE alias = $1', [alias]);
    return r ? idpOf(r) : null;
  }
  async list(): Promise<UpstreamIdpRecord[]> { return (await this.db.query<IdpRow>('SELECT * FROM upstream_idps ORDER BY alias')).map(idpOf); }
  async remove(alias: string): Promise<boolean> { return (await this.db.exec('DELETE FROM upstream_idps WHERE alias = $1', [alias])) === 1; }
}

type LinkRow = Omit<UpstreamLinkRecord, 'groups'> & { groups: string };
const linkOf = (r: LinkRow): UpstreamLinkRecord => ({ ...r, groups: JSON.parse(r.groups) as string[] });

/** PostgreSQL implementation of `UpstreamLinkStore`. */
export class PgUpstreamLinkStore implements UpstreamLinkStore {
  constructor(private readonly db: PgDb) {}

  async put(r: UpstreamLinkRecord): Promise<void> {
    await this.db.exec(`INSERT INTO upstream_links (upstream_iss, upstream_sub, user_id, alias, preferred_username, groups, created_at, last_login_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
      ON CONFLICT (upstream_iss, upstream_sub) DO UPDATE SET alias = excluded.alias, preferred_username = excluded.preferred_username,
        groups = excluded.groups, last_login_at = excluded.last_login_at`,
    [r.upstream_iss, r.upstream_sub, r.user_id, r.alias, r.preferred_username, JSON.stringify(r.groups), r.created_at, r.last_login_at]);
  }
  async get(iss: string, sub: string): Promise<UpstreamLinkRecord | null> {
    const [r] = await this.db.query<LinkRow>('SELECT * FROM upstream_links WHERE upstream_iss = $1 AND upstream_sub = $2', [iss, sub]);
    return r ? linkOf(r) : null;
  }
  async byUser(userId: string): Promise<UpstreamLinkRecord[]> {
    return (await this.db.query<LinkRow>('SELECT * FROM upstream_links WHERE user_id = $1 ORDER BY last_login_at DESC', [userId])).map(linkOf);
  }
}

const digest = (state: string): string => createHash('sha256').update(state).digest('hex');

/** PostgreSQL implementation of `BrokerStateStore` (single use: `take` marks the row used in one statement). */
export class PgBrokerStateStore implements BrokerStateStore {
  constructor(private readonly db: PgDb) {}

  async insert(r: BrokerStateRecord): Promise<void> {
    await this.db.exec(`INSERT INTO upstream_broker_states (state, nonce, code_verifier, interaction_uid, alias, expires_at, used_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7)`, [digest(r.state), r.nonce, r.code_verifier, r.interaction_uid, r.alias, r.expires_at, r.used_at]);
  }
  async take(state: string, now: number): Promise<BrokerStateRecord | null> {
    const [r] = await this.db.query<BrokerStateRecord>(
      'UPDATE upstream_broker_states SET used_at = $1 WHERE state = $2 AND used_at IS NULL RETURNING *', [now, digest(state)]);
    return r ? { ...r, state } : null;
  }
  async prune(before: number): Promise<void> { await this.db.exec('DELETE FROM upstream_broker_states WHERE expires_at < $1', [before]); }
}

const SIGN_IN_COLUMNS = 'id, at, user_id, email, method, second_factor, issuer, client_id, client_ip';
type SignInRow = Omit<SignInRecord, 'method' | 'second_factor'> & { method: string; second_factor: string | null };

/** PostgreSQL implementation of `SignInStore` (keyset pages, newest first). */
export class PgSignInStore implements SignInStore {
  constructor(private readonly db: PgDb) {}

  async insert(r: Omit<SignInRecord, 'id'>): Promise<void> {
    await this.db.exec('INSERT INTO sign_ins (at, user_id, email, method, second_factor, issuer, client_id, client_ip) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [r.at, r.user_id, r.email, r.method, r.second_factor, r.issuer, r.client_id, r.client_ip]);
  }
  async page(before: SignInPosition | null, limit: number): Promise<SignInRecord[]> {
    const rows = before
      ? await this.db.query<SignInRow>(`SELECT ${SIGN_IN_COLUMNS} FROM sign_ins WHERE at < $1 OR (at = $1 AND id < $2) ORDER BY at DESC, id DESC LIMIT $3`,
        [before.at, before.id, limit])
      : await this.db.query<SignInRow>(`SELECT ${SIGN_IN_COLUMNS} FROM sign_ins ORDER BY at DESC, id DESC LIMIT $1`, [limit]);
    return rows.map((r) => ({ ...r, method: r.method as SignInMethod, second_factor: r.second_factor as SignInSecondFactor | null }));
  }
  countsByMethod(since: number): Promise<Array<{ method: string; count: number }>> {
    return this.db.query<{ method: string; count: number }>(
      'SELECT method, count(*) AS count FROM sign_ins WHERE at >= $1 GROUP BY method ORDER BY count DESC, method', [since]);
  }
  prune(before: number): Promise<number> { return this.db.exec('DELETE FROM sign_ins WHERE at < $1', [before]); }
}

const LIVE = '(expires_at IS NULL OR expires_at > $3)';

/** PostgreSQL implementation of `IdpModelStore` (the oidc-provider adapter's rows). */
export class PgIdpModelStore implements IdpModelStore {
  constructor(private readonly db: PgDb) {}

  async upsert(r: IdpModelRow): Promise<void> {
    await this.db.exec(`INSERT INTO idp_models (model, id, payload, grant_id, uid, user_code, expires_at, consumed_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
      ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
        user_code = excluded.user_code, expires_at = excluded.expires_at, consumed_at = excluded.consumed_at`,
    [r.model, r.id, r.payload, r.grant_id, r.uid, r.user_code, r.expires_at, r.consumed_at]);
  }
  async find(model: string, id: string, now: number): Promise<IdpModelRow | null> {
    return (await this.db.query<IdpModelRow>(`SELECT * FROM idp_models WHERE model = $1 AND id = $2 AND ${LIVE}`, [model, id, now]))[0] ?? null;
  }
  async findByUid(model: string, uid: string, now: number): Promise<IdpModelRow | null> {
    return (await this.db.query<IdpModelRow>(`SELECT * FROM idp_models WHERE model = $1 AND uid = $2 AND ${LIVE} LIMIT 1`, [model, uid, now]))[0] ?? null;
  }
  async findByUserCode(model: string, userCode: string, now: number): Promise<IdpModelRow | null> {
    return (await this.db.query<IdpModelRow>(`SELECT * FROM idp_models WHERE model = $1 AND user_code = $2 AND ${LIVE} LIMIT 1`, [model, userCode, now]))[0] ?? null;
  }
  async consume(model: string, id: string, atSeconds: number): Promise<void> {
    await this.db.exec('UPDATE idp_models SET consumed_at = $1 WHERE model = $2 AND id = $3', [atSeconds, model, id]);
  }
  async destroy(model: string, id: string): Promise<void> { await this.db.exec('DELETE FROM idp_models WHERE model = $1 AND id = $2', [model, id]); }
  revokeByGrantId(grantId: string): Promise<number> { return this.db.exec('DELETE FROM idp_models WHERE grant_id = $1', [grantId]); }
  prune(now: number): Promise<number> { return this.db.exec('DELETE FROM idp_models WHERE expires_at IS NOT NULL AND expires_at <= $1', [now]); }
}
