/**
 * The oidc-provider adapter over the auth store (issue 15 item 1): every model the embedded IdP
 * persists (sessions, interactions, codes, tokens, grants) lives in the auth service's store
 * (`idp_models`; SQLite store/idp-models.ts or PostgreSQL store/pg/idp-models.ts), so a restart keeps sessions and refresh tokens.
 *
 * oidc-provider calls `new Adapter(modelName)` per model; `idpAdapterFactory(store, clock)` returns
 * such a class bound to the store. Expiry: `expiresIn` seconds from now, enforced on every read.
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { IdpModelStore } from './model-store.js';

/** The adapter constructor oidc-provider expects (`configuration.adapter`). */
export type IdpAdapterClass = new (model: string) => Adapter;

/** Build the adapter class over `store`; `clock` gives Unix ms. */
export function idpAdapterFactory(store: IdpModelStore, clock: () => number): IdpAdapterClass {
  const parse = (row: { payload: string; consumed_at: number | null } | null): AdapterPayload | undefined => {
    if (!row) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    return row.consumed_at === null ? payload : { ...payload, consumed: row.consumed_at };
  };
  return class StoreIdpAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      await store.upsert({
        model: this.model, id, payload: JSON.stringify(payload),
        grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
        uid: typeof payload.uid === 'string' ? payload.uid : null,
        user_code: typeof payload.userCode === 'string' ? payload.userCode : null,
        expires_at: expiresIn ? clock() + expiresIn * 1000 : null,
        consumed_at: null,
      });
    }

    async find(id: string): Promise<AdapterPayload | undefined> { return parse(await store.find(this.model, id, clock())); }
    async findByUid(uid: string): Promise<AdapterPayload | undefined> { return parse(await store.findByUid(this.model, uid, clock())); }
    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> { return parse(await store.findByUserCode(this.model, userCode, clock())); }
    async consume(id: string): Promise<void> { await store.consume(this.model, id, Math.floor(clock() / 1000)); }
    async destroy(id: string): Promise<void> { await store.destroy(this.model, id); }
    async revokeByGrantId(grantId: string): Promise<void> { await store.revokeByGrantId(grantId); }
  };
}
