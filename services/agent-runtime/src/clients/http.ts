/**
 * Small JSON-over-HTTP helper for the runtime's calls to its peers (guardrail, memory, knowledge,
 * inference router, readiness probes). Loopback keep-alive through undici's global dispatcher.
 */
import { request } from 'undici';

/** A peer's answer: status and parsed JSON body (null when the body was not JSON). */
export interface JsonAnswer { status: number; body: unknown }

/** Options of one call. */
export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: unknown;
  /** Whole-call timeout, ms. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Call `url` and parse the JSON answer.
 * @throws Error on connection failure, timeout or abort (the caller decides what unreachable means).
 */
export async function callJson(url: string, opts: CallOptions): Promise<JsonAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  let body: string | undefined;
  if (opts.body !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(opts.body); }
  const signals = [AbortSignal.timeout(opts.timeoutMs)];
  if (opts.signal) signals.push(opts.signal);
  const res = await request(url, {
    method: opts.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, signal: AbortSignal.any(signals),
    headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs,
  });
  const text = await res.body.text();
  let parsed: unknown = null;
  if (text) { try { parsed = JSON.parse(text); } catch { parsed = null; } }
  return { status: res.statusCode, body: parsed };
}

/** Whether the service at `baseUrl` answers `GET /readyz` with 200 within 1 s. Never throws. */
export async function isReady(baseUrl: string): Promise<boolean> {
  try {
    return (await callJson(`${baseUrl}/readyz`, { timeoutMs: 1000 })).status === 200;
  } catch {
    return false;
  }
}
