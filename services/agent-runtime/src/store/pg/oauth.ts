/**
 * OAuth providers, flows and connections on PostgreSQL (tables `oauth_providers`, `oauth_states`,
 * `oauth_connections`, migrations/agent-runtime/pg/0002_integrations.sql; issue 21 item 1): the twin
 * of store/oauth.ts. `oauth_states.seq` stands in for SQLite's rowid (the tie-break of the latest flow).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { OAuthConnectionRow, OAuthProviderRow, OAuthStateRow, OAuthStore } from '../../domain/oauth/ports.js';

const PROVIDER = ['tenant_id', 'slug', 'name', 'issuer', 'authorization_endpoint', 'token_endpoint', 'revocation_endpoint', 'client_id', 'client_secret_ref', 'scopes_json', 'created_at', 'updated_at'] as const;
const STATE = ['state_hash', 'tenant_id', 'user_id', 'slug', 'code_verifier', 'redirect_uri', 'created_at', 'expires_at', 'used_at', 'outcome', 'error'] as const;
const CONN = ['tenant_id', 'user_id', 'slug', 'status', 'scopes_json', 'key_id', 'iv', 'tag', 'ciphertext', 'expires_at', 'lifetime_s', 'connected_at', 'last_refreshed_at', 'updated_at'] as const;
const params = (cols: readonly string[]): string => cols.map((_, i) => `$${i + 1}`).join(', ');
const SEL_PROVIDER = `SELECT ${PROVIDER.join(', ')} FROM oauth_providers`;
const SEL_STATE = `SELECT ${STATE.join(', ')} FROM oauth_states`;
const SEL_CONN = `SELECT ${CONN.join(', ')} FROM oauth_connections`;

/** `OAuthStore` over one service schema. */
export class PgOAuthStore implements OAuthStore {
  constructor(private readonly db: PgDb) {}

  async provider(tenantId: string, slug: string): Promise<OAuthProviderRow | undefined> {
    return (await this.db.query<OAuthProviderRow>(`${SEL_PROVIDER} WHERE tenant_id = $1 AND slug = $2`, [tenantId, slug]))[0];
  }

  async providers(tenantId: string): Promise<OAuthProviderRow[]> {
    return this.db.query<OAuthProviderRow>(`${SEL_PROVIDER} WHERE tenant_id = $1 ORDER BY slug COLLATE "C"`, [tenantId]);
  }

  async insertProvider(row: OAuthProviderRow): Promise<boolean> {
    return (await this.db.exec(`INSERT INTO oauth_providers (${PROVIDER.join(', ')}) VALUES (${params(PROVIDER)}) ON CONFLICT DO NOTHING`, PROVIDER.map((c) => row[c]))) > 0;
  }

  async updateProvider(row: OAuthProviderRow): Promise<void> {
    await this.db.exec(`UPDATE oauth_providers SET name = $3, issuer = $4, authorization_endpoint = $5, token_endpoint = $6, revocation_endpoint = $7,
      client_id = $8, client_secret_ref = $9, scopes_json = $10, updated_at = $11 WHERE tenant_id = $1 AND slug = $2`,
    [row.tenant_id, row.slug, row.name, row.issuer, row.authorization_endpoint, row.token_endpoint, row.revocation_endpoint, row.client_id, row.client_secret_ref, row.scopes_json, row.updated_at]);
  }

  async deleteProvider(tenantId: string, slug: string): Promise<boolean> {
    return this.db.tx(async () => {
      await this.db.exec('DELETE FROM oauth_states WHERE tenant_id = $1 AND slug = $2', [tenantId, slug]);
      await this.db.exec('DELETE FROM oauth_connections WHERE tenant_id = $1 AND slug = $2', [tenantId, slug]);
      return (await this.db.exec('DELETE FROM oauth_providers WHERE tenant_id = $1 AND slug = $2', [tenantId, slug])) > 0;
    });
  }

  async putState(row: OAuthStateRow): Promise<void> {
    await this.db.exec(`INSERT INTO oauth_states (${STATE.join(', ')}) VALUES (${params(STATE)})`, STATE.map((c) => row[c]));
  }

  async state(hash: string): Promise<OAuthStateRow | undefined> {
    return (await this.db.query<OAuthStateRow>(`${SEL_STATE} WHERE state_hash = $1`, [hash]))[0];
  }

  async useState(hash: string, at: string): Promise<boolean> {
    return (await this.db.exec('UPDATE oauth_states SET used_at = $1 WHERE state_hash = $2 AND used_at IS NULL', [at, hash])) > 0;
  }

  async finishState(hash: string, outcome: 'connected' | 'failed', error: string | null): Promise<void> {
    await this.db.exec('UPDATE oauth_states SET outcome = $1, error = $2 WHERE state_hash = $3', [outcome, error, hash]);
  }

  async latestState(tenantId: string, userId: string, slug: string): Promise<OAuthStateRow | undefined> {
    return (await this.db.query<OAuthStateRow>(`${SEL_STATE} WHERE tenant_id = $1 AND user_id = $2 AND slug = $3
      ORDER BY created_at COLLATE "C" DESC, seq DESC LIMIT 1`, [tenantId, userId, slug]))[0];
  }

  async pruneStates(before: string): Promise<void> {
    await this.db.exec('DELETE FROM oauth_states WHERE expires_at < $1 COLLATE "C"', [before]);
  }

  async connection(tenantId: string, userId: string, slug: string): Promise<OAuthConnectionRow | undefined> {
    return (await this.db.query<OAuthConnectionRow>(`${SEL_CONN} WHERE tenant_id = $1 AND user_id = $2 AND slug = $3`, [tenantId, userId, slug]))[0];
  }

  async putConnection(row: OAuthConnectionRow): Promise<void> {
    await this.db.exec(`INSERT INTO oauth_connections (${CONN.join(', ')}) VALUES (${params(CONN)})
      ON CONFLICT (tenant_id, user_id, slug) DO UPDATE SET status = excluded.status,
        scopes_json = excluded.scopes_json, key_id = excluded.key_id, iv = excluded.iv, tag = excluded.tag, ciphertext = excluded.ciphertext,
        expires_at = excluded.expires_at, lifetime_s = excluded.lifetime_s, connected_at = excluded.connected_at,
        last_refreshed_at = excluded.last_refreshed_at, updated_at = excluded.updated_at`, CONN.map((c) => row[c]));
  }

  async setStatus(tenantId: string, userId: string, slug: string, status: OAuthConnectionRow['status'], at: string): Promise<void> {
    await this.db.exec('UPDATE oauth_connections SET status = $1, updated_at = $2 WHERE tenant_id = $3 AND user_id = $4 AND slug = $5', [status, at, tenantId, userId, slug]);
  }

  async deleteConnection(tenantId: string, userId: string, slug: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM oauth_connections WHERE tenant_id = $1 AND user_id = $2 AND slug = $3', [tenantId, userId, slug])) > 0;
  }

  async expiring(limit: number): Promise<OAuthConnectionRow[]> {
    return this.db.query<OAuthConnectionRow>(`${SEL_CONN} WHERE status = 'connected' AND expires_at IS NOT NULL
      ORDER BY expires_at COLLATE "C", tenant_id COLLATE "C", user_id COLLATE "C", slug COLLATE "C" LIMIT $1`, [limit]);
  }

  async connectionsOf(tenantId: string, userId: string): Promise<OAuthConnectionRow[]> {
    return this.db.query<OAuthConnectionRow>(`${SEL_CONN} WHERE tenant_id = $1 AND user_id = $2 ORDER BY slug COLLATE "C"`, [tenantId, userId]);
  }
}
