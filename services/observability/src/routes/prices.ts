/**
 * Price routes (spec "Observability"; prices are advisory):
 * - `GET /v1/prices` -> 200 `{items: PriceView[], refreshed_at, source_url}`: OBS_LOCAL_PRICE_JSON
 *   entries (`source: "local"`, they win) then the refreshed list (`source: "list"`), USD per 1M tokens.
 * - `POST /v1/prices/refresh` (admin) -> 200 `{updated, refreshed_at, source_url}`; 409
 *   `pricing_url_missing` without PRICING_MODELS_URL; 422 `pricing_refresh_failed` when the list
 *   cannot be fetched (redirects are not followed) or parsed.
 */
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { AppError } from '../../../shared/http/errors.js';
import { requireRole } from '../../../shared/http/server.js';
import type { PriceView } from '../contracts.js';
import type { ObsContext } from '../domain/context.js';
import { parsePriceList } from '../domain/prices.js';

const MAX_LIST_BYTES = 32 * 1024 * 1024;

/** Fetch and parse the price list at `url`. @throws AppError 422 `pricing_refresh_failed` */
export async function fetchPriceList(url: string, timeoutMs: number): Promise<Record<string, { in: number; out: number }>> {
  let res;
  try {
    res = await request(url, { method: 'GET', headers: { accept: 'application/json' }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  } catch (err) {
    throw new AppError(422, 'pricing_refresh_failed', `could not reach the pricing list at ${url}: ${(err as Error).message}`);
  }
  if (res.statusCode >= 300 && res.statusCode < 400) {
    await res.body.dump();
    throw new AppError(422, 'pricing_refresh_failed', `the pricing list at ${url} redirects to ${String(res.headers.location ?? '(no location)')}; redirects are not followed, set PRICING_MODELS_URL to the final address`);
  }
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new AppError(422, 'pricing_refresh_failed', `the pricing list at ${url} answered HTTP ${res.statusCode}`);
  }
  const chunks: Buffer[] = []; let size = 0;
  for await (const c of res.body) {
    size += (c as Buffer).length;
    if (size > MAX_LIST_BYTES) { res.body.destroy(); throw new AppError(422, 'pricing_refresh_failed', 'the pricing list exceeds 32 MiB'); }
    chunks.push(c as Buffer);
  }
  try {
    const parsed = parsePriceList(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    if (Object.keys(parsed).length === 0) throw new Error('no entries with both input and output prices');
    return parsed;
  } catch (err) {
    throw new AppError(422, 'pricing_refresh_failed', `the pricing list at ${url} could not be read: ${(err as Error).message}`);
  }
}

/** Register the price routes. */
export function priceRoutes(ctx: ObsContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/v1/prices', async () => {
      const items: PriceView[] = Object.entries(ctx.cfg.localPrices).map(([model, p]) => ({ model, in: p.in, out: p.out, unit: 'usd_per_1m_tokens', source: 'local', updated_at: null }));
      const local = new Set(Object.keys(ctx.cfg.localPrices));
      for (const p of ctx.store.prices()) {
        if (!local.has(p.model)) items.push({ model: p.model, in: p.in, out: p.out, unit: 'usd_per_1m_tokens', source: 'list', updated_at: p.updated_at });
      }
      return { items, refreshed_at: ctx.store.meta('prices_refreshed_at'), source_url: ctx.cfg.pricingModelsUrl };
    });

    app.post('/v1/prices/refresh', async (req) => {
      requireRole(req, 'admin');
      const url = ctx.cfg.pricingModelsUrl;
      if (!url) throw new AppError(409, 'pricing_url_missing', 'no pricing list is configured; set PRICING_MODELS_URL (local prices come from OBS_LOCAL_PRICE_JSON)');
      const list = await fetchPriceList(url, ctx.cfg.pricingTimeoutMs);
      const at = new Date().toISOString();
      const updated = ctx.store.replacePrices(list, at, url);
      ctx.reloadList();
      return { updated, refreshed_at: at, source_url: url };
    });
  };
}
