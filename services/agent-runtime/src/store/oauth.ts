/**
 * OAuth providers, flows and connections over SQLite (tables `oauth_providers`, `oauth_states`,
 * `oauth_connections`, migration 0010; issue 18 item 1). Connection rows hold ciphertext, IV and
 * tag only (domain/oauth/flows.ts seals them); flows are keyed by the hash of their state.
 */
import type { Db } from '../../../shared/db/open.js';
import type { OAuthConnectionRow, OAuthProviderRow, OAuthStateRow, OAuthStore } from '../domain/oauth/ports.js';

/** `OAuthStore` over one open database. */
export class SqliteOAuthStore implements OAuthStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      provider: db.prepare<[string, string], OAuthProviderRow>('SELECT * FROM oauth_providers WHERE tenant_id = ? AND slug = ?'),
      providers: db.prepare<[string], OAuthProviderRow>('SELECT * FROM oauth_providers WHERE tenant_id = ? ORDER BY slug'),
      insertProvider: db.prepare(`INSERT OR IGNORE INTO oauth_providers (tenant_id, slug, name, issuer, authorization_endpoint, token_endpoint, revocation_endpoint,
        client_id, client_secret_ref, scopes_json, created_at, updated_at) VALUES (@tenant_id, @slug, @name, @issuer, @authorization_endpoint, @token_endpoint,
        @revocation_endpoint, @client_id, @client_secret_ref, @scopes_json, @created_at, @updated_at)`),
      updateProvider: db.prepare(`UPDATE oauth_providers SET name = @name, issuer = @issuer, authorization_endpoint = @authorization_endpoint,
        token_endpoint = @token_endpoint, revocation_endpoint = @revocation_endpoint, client_id = @client_id, client_secret_ref = @client_secret_ref,
        scopes_json = @scopes_json, updated_at = @updated_at WHERE tenant_id = @tenant_id AND slug = @slug`),
      deleteProvider: db.prepare('DELETE FROM oauth_providers WHERE tenant_id = ? AND slug = ?'),
      deleteStatesOf: db.prepare('DELETE FROM oauth_states WHERE tenant_id = ? AND slug = ?'),
      deleteConnectionsOf: db.prepare('DELETE FROM oauth_connections WHERE tenant_id = ? AND slug = ?'),
      putState: db.prepare(`INSERT INTO oauth_states (state_hash, tenant_id, user_id, slug, code_verifier, redirect_uri, created_at, expires_at, used_at, outcome, error)
        VALUES (@state_hash, @tenant_id, @user_id, @slug, @code_verifier, @redirect_uri, @created_at, @expires_at, @used_at, @outcome, @error)`),
      state: db.prepare<[string], OAuthStateRow>('SELECT * FROM oauth_states WHERE state_hash = ?'),
      useState: db.prepare('UPDATE oauth_states SET used_at = ? WHERE state_hash = ? AND used_at IS NULL'),
      finishState: db.prepare('UPDATE oauth_states SET outcome = ?, error = ? WHERE state_hash = ?'),
      latestState: db.prepare<[string, string, string], OAuthStateRow>('SELECT * FROM oauth_states WHERE tenant_id = ? AND user_id = ? AND slug = ? ORDER BY created_at DESC, rowid DESC LIMIT 1'),
      pruneStates: db.prepare('DELETE FROM oauth_states WHERE expires_at < ?'),
      connection: db.prepare<[string, string, string], OAuthConnectionRow>('SELECT * FROM oauth_connections WHERE tenant_id = ? AND user_id = ? AND slug = ?'),
      putConnection: db.prepare(`INSERT INTO oauth_connections (tenant_id, user_id, slug, status, scopes_json, key_id, iv, tag, ciphertext, expires_at, lifetime_s,
        connected_at, last_refreshed_at, updated_at) VALUES (@tenant_id, @user_id, @slug, @status, @scopes_json, @key_id, @iv, @tag, @ciphertext, @expires_at,
        @lifetime_s, @connected_at, @last_refreshed_at, @updated_at) ON CONFLICT (tenant_id, user_id, slug) DO UPDATE SET status = excluded.status,
        scopes_json = excluded.scopes_json, key_id = excluded.key_id, iv = excluded.iv, tag = excluded.tag, ciphertext = excluded.ciphertext,
        expires_at = excluded.expires_at, lifetime_s = excluded.lifetime_s, connected_at = excluded.connected_at,
        last_refreshed_at = excluded.last_refreshed_at, updated_at = excluded.updated_at`),
      setStatus: db.prepare('UPDATE oauth_connections SET status = ?, updated_at = ? WHERE tenant_id = ? AND user_id = ? AND slug = ?'),
      deleteConnection: db.prepare('DELETE FROM oauth_connections WHERE tenant_id = ? AND user_id = ? AND slug = ?'),
      expiring: db.prepare<[number], OAuthConnectionRow>("SELECT * FROM oauth_connections WHERE status = 'connected' AND expires_at IS NOT NULL ORDER BY expires_at LIMIT ?"),
      connectionsOf: db.prepare<[string, string], OAuthConnectionRow>('SELECT * FROM oauth_connections WHERE tenant_id = ? AND user_id = ? ORDER BY slug'),
    };
  }

  provider(tenantId: string, slug: string): OAuthProviderRow | undefined { return this.s.provider.get(tenantId, slug); }
  providers(tenantId: string): OAuthProviderRow[] { return this.s.providers.all(tenantId); }
  insertProvider(row: OAuthProviderRow): boolean { return this.s.insertProvider.run(row).changes > 0; }
  updateProvider(row: OAuthProviderRow): void { this.s.updateProvider.run(row); }

  deleteProvider(tenantId: string, slug: string): boolean {
    return this.db.transaction(() => {
      this.s.deleteStatesOf.run(tenantId, slug);
      this.s.deleteConnectionsOf.run(tenantId, slug);
      return this.s.deleteProvider.run(tenantId, slug).changes > 0;
    })();
  }

  putState(row: OAuthStateRow): void { this.s.putState.run(row); }
  state(hash: string): OAuthStateRow | undefined { return this.s.state.get(hash); }
  useState(hash: string, at: string): boolean { return this.s.useState.run(at, hash).changes > 0; }
  finishState(hash: string, outcome: 'connected' | 'failed', error: string | null): void { this.s.finishState.run(outcome, error, hash); }
  latestState(tenantId: string, userId: string, slug: string): OAuthStateRow | undefined { return this.s.latestState.get(tenantId, userId, slug); }
  pruneStates(before: string): void { this.s.pruneStates.run(before); }
  connection(tenantId: string, userId: string, slug: string): OAuthConnectionRow | undefined { return this.s.connection.get(tenantId, userId, slug); }
  putConnection(row: OAuthConnectionRow): void { this.s.putConnection.run(row); }
  setStatus(tenantId: string, userId: string, slug: string, status: OAuthConnectionRow['status'], at: string): void { this.s.setStatus.run(status, at, tenantId, userId, slug); }
  deleteConnection(tenantId: string, userId: string, slug: string): boolean { return this.s.deleteConnection.run(tenantId, userId, slug).changes > 0; }
  expiring(limit: number): OAuthConnectionRow[] { return this.s.expiring.all(limit); }
  connectionsOf(tenantId: string, userId: string): OAuthConnectionRow[] { return this.s.connectionsOf.all(tenantId, userId); }
}
