/**
 * The HTTP step shared by the remote adapters and the registration probe: one request through
 * undici (redirects are never followed: undici's request() does not follow them), with status
 * mapping to `UpstreamError`. The dispatcher is the outbound agent of services/shared/http
 * (issue 11 item 8): a base URL that reaches the workstation's own ports or a link-local address
 * fails with `not_allowed` before anything is sent.
 */
import type { Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import { isUrlNotAllowed } from '../../../shared/http/outbound.js';
import { UpstreamError } from '../domain/upstream.js';

/**
 * Send a request; resolve with the 2xx response, or throw a classified `UpstreamError` (`not_allowed`
 * when the outbound agent refused the address).
 */
export async function send(
  dispatcher: Dispatcher,
  url: string,
  opts: { method: 'GET' | 'POST'; body?: string; apiKey: string | null; traceparent?: string; signal?: AbortSignal; timeoutMs: number; accept?: string },
): Promise<Dispatcher.ResponseData> {
  const headers: Record<string, string> = { accept: opts.accept ?? 'application/json' };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  if (opts.traceparent) headers.traceparent = opts.traceparent;
  let res: Dispatcher.ResponseData;
  try {
    res = await dispatcher.request({
      origin: new URL(url).origin, path: new URL(url).pathname + new URL(url).search, method: opts.method, headers,
      body: opts.body ?? null, signal: opts.signal ?? null, headersTimeout: opts.timeoutMs, bodyTimeout: 0,
    });
  } catch (err) {
    const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
    if (opts.signal?.aborted) throw new UpstreamError('client closed the request', 'aborted');
    if (isUrlNotAllowed(err)) throw new UpstreamError(`${new URL(url).origin} is not allowed: ${e.message}`, 'not_allowed');
    const code = e.code ?? e.cause?.code ?? '';
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') throw new UpstreamError(`${url} did not answer within ${opts.timeoutMs} ms`, 'timeout');
    const why = code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'host not found' : (e.cause?.message ?? e.message);
    throw new UpstreamError(`could not reach ${url}: ${why}${code ? ` (${code})` : ''}`, 'unreachable');
  }
  const s = res.statusCode;
  if (s >= 200 && s < 300) return res;
  const text = await readText(res.body, 64 * 1024).catch(() => '');
  if (s >= 300 && s < 400) {
    const loc = res.headers.location;
    throw new UpstreamError(`${url} redirects (HTTP ${s}) to ${Array.isArray(loc) ? loc[0] : (loc ?? '(no Location header)')}; redirects are never followed`, 'redirect', s);
  }
  const msg = upstreamMessage(text) ?? `HTTP ${s}`;
  if (s === 401 || s === 403) {
    throw opts.apiKey
      ? new UpstreamError(`${url} refused the API key (HTTP ${s}): ${msg}`, 'auth', s)
      : new UpstreamError(`${url} requires an API key (HTTP ${s}) and none is stored for this provider`, 'key_missing', s);
  }
  if (s === 429) throw new UpstreamError(`${url} is rate limiting (HTTP 429): ${msg}`, 'rate_limited', s);
  if (s >= 500) throw new UpstreamError(`${url} failed (HTTP ${s}): ${msg}`, 'server', s);
  if (s === 404) throw new UpstreamError(`${url} answered 404: ${msg}`, 'model_missing', s);
  throw new UpstreamError(`provider rejected the request (HTTP ${s}): ${msg}`, 'rejected', s);
}

/** Read a body as text up to `max` bytes. */
export async function readText(body: Dispatcher.ResponseData['body'], max: number): Promise<string> {
  const chunks: Buffer[] = []; let n = 0;
  for await (const c of body) {
    n += (c as Buffer).length;
    if (n > max) { body.destroy(); throw new UpstreamError(`answer larger than ${max} bytes`, 'bad_response'); }
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The message of an OpenAI-style error body (`{error: {message}}` or `{error: "..."}`), if any. */
export function upstreamMessage(text: string): string | null {
  try {
    const j = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof j.error === 'string') return j.error.slice(0, 500);
    if (j.error && typeof j.error.message === 'string') return j.error.message.slice(0, 500);
    if (typeof j.message === 'string') return j.message.slice(0, 500);
  } catch { /* not JSON */ }
  return text ? text.slice(0, 200) : null;
}

/** Provider version from answer headers: `openai-version`, else `server`. */
export function versionFromHeaders(h: IncomingHttpHeaders): string | null {
  const v = h['openai-version'] ?? h['x-ollama-version'] ?? h.server;
  return typeof v === 'string' && v ? v.slice(0, 200) : null;
}

/**
 * Split SSE text into complete events; returns the events (their `data:` payloads joined by `\n`,
 * plus the `event:` name) and the incomplete tail to keep for the next chunk.
 */
export function splitSse(buffer: string): { events: Array<{ event: string | null; data: string; raw: string }>; rest: string } {
  const events: Array<{ event: string | null; data: string; raw: string }> = [];
  let start = 0;
  const norm = buffer.includes('\r') ? buffer.replace(/\r\n?/g, '\n') : buffer;
  for (;;) {
    const end = norm.indexOf('\n\n', start);
    if (end < 0) break;
    const raw = norm.slice(start, end);
    start = end + 2;
    let event: string | null = null; const data: string[] = [];
    for (const line of raw.split('\n')) {
      if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
      else if (line.startsWith('event:')) event = line.slice(6).trim();
    }
    if (data.length || event) events.push({ event, data: data.join('\n'), raw });
  }
  return { events, rest: norm.slice(start) };
}
