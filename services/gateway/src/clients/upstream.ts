/**
 * One proxied request to an owning service over a kept-alive undici pool, through undici's
 * dispatch-handler API rather than `request()`: small answers (Content-Length up to a limit) are
 * collected into one Buffer without a stream per response, larger or unsized answers (SSE, files)
 * are streamed with backpressure. This is the gateway's hot path (issue 2 "Figures").
 */
import { PassThrough } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import { SERVICE_NAMES, type UpstreamName } from '../../../shared/services.js';
import type { UpstreamUrls } from '../../../shared/config.js';
import { withServiceTokens } from '../../../shared/identity/service-token-dispatch.js';

/** Upstream answers up to this size (with a Content-Length) are buffered rather than piped, bytes. */
export const BUFFER_LIMIT = 256 * 1024;

/**
 * One kept-alive undici pool per owning service, on loopback. Each request carries the gateway's
 * service token (issue 15 item 4; `withServiceTokens`: added when service tokens are installed).
 */
export class UpstreamPools {
  private readonly pools = new Map<UpstreamName, Dispatcher>();

  /** Open a pool to every service of `urls` (no connection is made until the first request). */
  constructor(urls: UpstreamUrls) {
    for (const name of SERVICE_NAMES) {
      if (name === 'gateway') continue;
      const pool = new Pool(urls[name], { connections: 128, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: 300_000, bodyTimeout: 0 });
      this.pools.set(name, withServiceTokens(pool, urls[name]));
    }
  }

  /** The pool of `service`. */
  get(service: UpstreamName): Dispatcher {
    return this.pools.get(service)!;
  }

  /** Close every pool (in-flight requests finish first); never throws. */
  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close().catch(() => undefined)));
  }
}

/** The upstream's answer: status, headers, and the body as a Buffer (small) or a stream. */
export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Buffer | PassThrough;
}

/** A request in flight: its answer, and `abort()` for when the client goes away. */
export interface UpstreamCall {
  response: Promise<UpstreamResponse>;
  abort(): void;
}

/**
 * Send one request through `dispatcher`.
 * @param bufferLimit answers with a Content-Length up to this many bytes are buffered.
 * The promise rejects on connection failures (the caller answers 502).
 */
export function callUpstream(
  dispatcher: Dispatcher,
  opts: { method: string; path: string; headers: Record<string, string>; body: Buffer | undefined },
  bufferLimit: number,
): UpstreamCall {
  let controller: Dispatcher.DispatchController | null = null;
  let aborted = false;
  let settled = false;
  let stream: PassThrough | null = null;
  let chunks: Buffer[] | null = null;
  let status = 0;
  let heads: IncomingHttpHeaders = {};
  let resolve!: (r: UpstreamResponse) => void;
  let reject!: (e: Error) => void;
  const response = new Promise<UpstreamResponse>((res, rej) => { resolve = res; reject = rej; });

  const handler: Dispatcher.DispatchHandler = {
    onRequestStart(c) {
      controller = c;
      if (aborted) c.abort(new Error('client closed'));
    },
    onResponseStart(c, statusCode, headers) {
      if (statusCode < 200) return; // 1xx informational
      status = statusCode;
      heads = headers;
      const len = Number(headers['content-length']);
      if (opts.method !== 'HEAD' && headers['content-length'] !== undefined && len >= 0 && len <= bufferLimit) {
        chunks = [];
      } else {
        const s = new PassThrough();
        stream = s;
        s.on('drain', () => { if (c.paused) c.resume(); });
        settled = true;
        resolve({ statusCode, headers, body: s });
      }
    },
    onResponseData(c, chunk) {
      if (chunks) chunks.push(chunk);
      else if (stream && !stream.write(chunk)) c.pause();
    },
    onResponseEnd() {
      if (chunks) {
        settled = true;
        resolve({ statusCode: status, headers: heads, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
      } else if (stream) stream.end();
      else if (!settled) { settled = true; resolve({ statusCode: status, headers: heads, body: Buffer.alloc(0) }); }
    },
    onResponseError(_c, err) {
      if (!settled) { settled = true; reject(err); } else stream?.destroy(err);
    },
  };

  dispatcher.dispatch({
    method: opts.method as Dispatcher.HttpMethod, path: opts.path, headers: opts.headers, body: opts.body ?? null,
    headersTimeout: 300_000, bodyTimeout: 0,
  }, handler);

  return {
    response,
    abort: () => {
      if (aborted) return;
      aborted = true;
      if (controller && !controller.aborted) controller.abort(new Error('client closed'));
    },
  };
}
