/**
 * The port of the embedded IdP's model store (issue 15 item 1; async for PostgreSQL: issue 21
 * item 1): one row per (model, id), the payload as JSON. `store/idp-models.ts` (SQLite) and
 * `store/pg/idp-models.ts` (PostgreSQL) implement it; the oidc-provider adapter and `IdpClaims`
 * use it. Reads never return rows expired at `now` (Unix ms).
 */
import type { Awaitable } from '../../../shared/db/async-store.js';

/** One stored model as the adapter writes it. */
export interface IdpModelRow {
  model: string;
  id: string;
  /** The model's JSON payload. */
  payload: string;
  grant_id: string | null;
  uid: string | null;
  user_code: string | null;
  /** Unix ms; null: no expiry. */
  expires_at: number | null;
  /** Unix seconds when consumed; null: not consumed. */
  consumed_at: number | null;
}

/** The IdP's persisted models. */
export interface IdpModelStore {
  /** Insert or replace one model. */
  upsert(row: IdpModelRow): Awaitable<void>;
  /** The live row of `model` `id`, or null. */
  find(model: string, id: string, now: number): Awaitable<IdpModelRow | null>;
  /** The live row of `model` with session `uid`, or null. */
  findByUid(model: string, uid: string, now: number): Awaitable<IdpModelRow | null>;
  /** The live row of `model` with `userCode` (device flow), or null. */
  findByUserCode(model: string, userCode: string, now: number): Awaitable<IdpModelRow | null>;
  /** Mark consumed at `atSeconds` (Unix seconds). */
  consume(model: string, id: string, atSeconds: number): Awaitable<void>;
  /** Delete one model. */
  destroy(model: string, id: string): Awaitable<void>;
  /** Delete every model of grant `grantId`. @returns rows deleted. */
  revokeByGrantId(grantId: string): Awaitable<number>;
  /** Delete rows expired at `now` (Unix ms). @returns rows deleted. */
  prune(now: number): Awaitable<number>;
}
