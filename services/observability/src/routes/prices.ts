/**
 * Price routes (spec "Observability"; prices are advisory):
 * - `GET /v1/prices` -> 200 `{items: PriceView[], refreshed_at, source_url}`: OBS_LOCAL_PRICE_JSON
 *   entries (`source: "local"`, they win) then the refreshed list (`source: "list"`), USD per 1M tokens.
 * - `POST /v1/prices/refresh` (admin) -> 200 `{updated, refreshed_at, source_url}`; 409
 *   `pricing_url_missing` without PRICING_MODELS_URL; 422 `pricing_refresh_failed` when the list
 *   cannot be fetched (redirects are not followed) or parsed.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireRole } from '../../../shared/kit/principal.js';
import { PriceListSchema, PriceRefreshSchema } from '../contracts.js';
import type { PriceBook } from '../domain/price-book.js';

/** Options of `priceRoutes`. */
export interface PriceRoutesOptions {
  prices: PriceBook;
}

/** Register the price routes. */
export const priceRoutes: FastifyPluginAsyncTypebox<PriceRoutesOptions> = async (app, { prices }) => {
  app.get('/v1/prices', { schema: { response: { 200: PriceListSchema } } }, async () => prices.prices());

  app.post('/v1/prices/refresh', { schema: { response: { 200: PriceRefreshSchema } } }, async (req) => {
    requireRole(req, 'admin');
    return prices.refresh();
  });
};
