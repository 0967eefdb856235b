/**
 * The external price list (spec "Observability": PRICING_MODELS_URL): one GET, redirects never
 * followed, at most 32 MiB, parsed into USD per 1M tokens (domain/prices.ts `parsePriceList`).
 * The GET goes through the outbound agent (services/shared/http/outbound-agent.ts, issue 11 item 8):
 * a URL that reaches the workstation's own gateway or service ports, or a link-local or unspecified
 * address, is refused with `url_not_allowed` before anything is sent.
 */
import { request, type Dispatcher } from 'undici';
import { isUrlNotAllowed } from '../../../shared/http/outbound.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { ModelPrice, ObservabilityErrorCode } from '../contracts.js';
import type { PriceListSource } from '../domain/ports.js';
import { parsePriceList } from '../domain/prices.js';

const MAX_LIST_BYTES = 32 * 1024 * 1024;

function failed(message: string): DomainError<ObservabilityErrorCode> {
  return new DomainError<ObservabilityErrorCode>('pricing_refresh_failed', message);
}

/**
 * Fetch and parse the price list at `url` through `dispatcher` (the outbound agent).
 * @throws DomainError `url_not_allowed` (the URL reaches the workstation itself or a link-local
 *   address), `pricing_refresh_failed` (unreachable, redirect, non-200, too large, unreadable, empty).
 */
export async function fetchPriceList(dispatcher: Dispatcher, url: string, timeoutMs: number): Promise<Record<string, ModelPrice>> {
  let res;
  try {
    res = await request(url, { dispatcher, method: 'GET', headers: { accept: 'application/json' }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  } catch (err) {
    if (isUrlNotAllowed(err)) throw err;
    throw failed(`could not reach the pricing list at ${url}: ${(err as Error).message}`);
  }
  if (res.statusCode >= 300 && res.statusCode < 400) {
    await res.body.dump();
    throw failed(`the pricing list at ${url} redirects to ${String(res.headers.location ?? '(no location)')}; redirects are not followed, set PRICING_MODELS_URL to the final address`);
  }
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw failed(`the pricing list at ${url} answered HTTP ${res.statusCode}`);
  }
  const chunks: Buffer[] = []; let size = 0;
  for await (const c of res.body) {
    size += (c as Buffer).length;
    if (size > MAX_LIST_BYTES) { res.body.destroy(); throw failed('the pricing list exceeds 32 MiB'); }
    chunks.push(c as Buffer);
  }
  try {
    const parsed = parsePriceList(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    if (Object.keys(parsed).length === 0) throw new Error('no entries with both input and output prices');
    return parsed;
  } catch (err) {
    throw failed(`the pricing list at ${url} could not be read: ${(err as Error).message}`);
  }
}

/** The `PriceListSource` over HTTP through `dispatcher` (the outbound agent of the service). */
export function httpPriceList(dispatcher: Dispatcher): PriceListSource {
  return { fetch: (url, timeoutMs) => fetchPriceList(dispatcher, url, timeoutMs) };
}
