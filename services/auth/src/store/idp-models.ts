/**
 * `idp_models` table (migrations/auth/0005_idp_models.sql; issue 15 item 1): the embedded OpenID
 * Connect provider's persisted models, one row per (model, id), the payload as JSON. The oidc-provider
 * adapter (services/auth/src/idp/adapter.ts) is the only user.
 */
import type { Db } from '../../../shared/db/open.js';
import type { IdpModelRow, IdpModelStore } from '../idp/model-store.js';

export type { IdpModelRow, IdpModelStore } from '../idp/model-store.js';


/** SQL of the IdP's model store; reads never return expired rows (`now` is Unix ms). */
export class SqliteIdpModelStore implements IdpModelStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      upsert: db.prepare<IdpModelRow>(`INSERT INTO idp_models (model, id, payload, grant_id, uid, user_code, expires_at, consumed_at)
        VALUES (@model, @id, @payload, @grant_id, @uid, @user_code, @expires_at, @consumed_at)
        ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
          user_code = excluded.user_code, expires_at = excluded.expires_at, consumed_at = excluded.consumed_at`),
      find: db.prepare<[string, string, number], IdpModelRow>('SELECT * FROM idp_models WHERE model = ? AND id = ? AND (expires_at IS NULL OR expires_at > ?)'),
      byUid: db.prepare<[string, string, number], IdpModelRow>('SELECT * FROM idp_models WHERE model = ? AND uid = ? AND (expires_at IS NULL OR expires_at > ?) LIMIT 1'),
      byUserCode: db.prepare<[string, string, number], IdpModelRow>('SELECT * FROM idp_models WHERE model = ? AND user_code = ? AND (expires_at IS NULL OR expires_at > ?) LIMIT 1'),
      consume: db.prepare<[number, string, string]>('UPDATE idp_models SET consumed_at = ? WHERE model = ? AND id = ?'),
      destroy: db.prepare<[string, string]>('DELETE FROM idp_models WHERE model = ? AND id = ?'),
      revokeByGrant: db.prepare<[string]>('DELETE FROM idp_models WHERE grant_id = ?'),
      prune: db.prepare<[number]>('DELETE FROM idp_models WHERE expires_at IS NOT NULL AND expires_at <= ?'),
    };
  }

  /** Insert or replace one model. */
  upsert(row: IdpModelRow): void { this.q.upsert.run(row); }
  /** The live row of `model` `id`, or null. */
  find(model: string, id: string, now: number): IdpModelRow | null { return this.q.find.get(model, id, now) ?? null; }
  /** The live row of `model` with session `uid`, or null. */
  findByUid(model: string, uid: string, now: number): IdpModelRow | null { return this.q.byUid.get(model, uid, now) ?? null; }
  /** The live row of `model` with `userCode` (device flow), or null. */
  findByUserCode(model: string, userCode: string, now: number): IdpModelRow | null { return this.q.byUserCode.get(model, userCode, now) ?? null; }
  /** Mark consumed at `atSeconds` (Unix seconds). */
  consume(model: string, id: string, atSeconds: number): void { this.q.consume.run(atSeconds, model, id); }
  /** Delete one model. */
  destroy(model: string, id: string): void { this.q.destroy.run(model, id); }
  /** Delete every model of grant `grantId` (tokens, codes, the grant's context). @returns rows deleted. */
  revokeByGrantId(grantId: string): number { return this.q.revokeByGrant.run(grantId).changes; }
  /** Delete rows expired at `now` (Unix ms). @returns rows deleted. */
  prune(now: number): number { return this.q.prune.run(now).changes; }
}
