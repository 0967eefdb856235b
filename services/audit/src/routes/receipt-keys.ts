/**
 * `GET /v1/receipts/keys` (public: no bearer, no principal; issue 22 item 1, issue 19 item 3):
 * every receipt signing public key, active and retired, newest first, as `ReceiptKeySet`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ReceiptKeySetSchema, type ReceiptKeySet } from '../contracts.js';
import type { ReceiptKeyRecord } from '../store/receipt-keys.js';

/** Options of `receiptKeyRoutes`. */
export interface ReceiptKeyRoutesOptions {
  /** The key set now, newest first (re-read when the store's file changes). */
  keys: () => ReceiptKeyRecord[];
}

/** The JWK view of the key records (`retired_at` only on retired keys). */
export function publishedReceiptKeys(keys: readonly ReceiptKeyRecord[]): ReceiptKeySet {
  return {
    keys: keys.map((k) => ({
      kty: 'OKP' as const, crv: 'Ed25519' as const, x: k.x, kid: k.kid, created_at: k.created_at,
      ...(k.retired_at ? { retired_at: k.retired_at } : {}),
    })),
  };
}

/** Register `GET /v1/receipts/keys`. */
export const receiptKeyRoutes: FastifyPluginAsyncTypebox<ReceiptKeyRoutesOptions> = async (app, { keys }) => {
  app.get('/v1/receipts/keys', { config: { public: true }, schema: { response: { 200: ReceiptKeySetSchema } } },
    async () => publishedReceiptKeys(keys()));
};
