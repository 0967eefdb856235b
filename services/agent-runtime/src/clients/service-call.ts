/**
 * `ToolContext.callService` (contracts/tools.ts): a tool plug-in calls a service's HTTP API as the
 * user of the turn. The turn's stamped identity headers are forwarded as they are, so visibility
 * and turn events apply to the user exactly as through the gateway.
 */
import { request } from 'undici';
import type { ServiceAnswer, ServiceCall } from '../contracts.js';

/** Identity headers a tool's call forwards. */
export const FORWARDED_HEADERS = ['x-svc-principal', 'x-svc-turn-id', 'x-svc-cap-token', 'x-correlation-id'] as const;

/** Header and body timeout of a tool's call, ms. */
export const SERVICE_CALL_TIMEOUT_MS = 15_000;

/**
 * A `ServiceCall` over `serviceUrls` with the turn's `headers`, aborted with `signal`.
 * The answer's body is parsed JSON, the text when it is not JSON, or null when empty.
 */
export function serviceCaller(serviceUrls: Readonly<Record<string, string>>, headers: Record<string, string>, signal?: AbortSignal): ServiceCall {
  return async (service, method, path, body) => {
    const baseUrl = serviceUrls[service];
    if (!baseUrl) throw new Error(`${service} service is not configured`);
    const h: Record<string, string> = {};
    for (const k of FORWARDED_HEADERS) if (headers[k]) h[k] = headers[k];
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await request(`${baseUrl}${path}`, {
      method, headers: h, ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      headersTimeout: SERVICE_CALL_TIMEOUT_MS, bodyTimeout: SERVICE_CALL_TIMEOUT_MS, ...(signal ? { signal } : {}),
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* keep text */ }
    const answer: ServiceAnswer = { ok: res.statusCode >= 200 && res.statusCode < 300, status: res.statusCode, body: parsed };
    return answer;
  };
}
