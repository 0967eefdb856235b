/**
 * The `memory` model role through the inference router (`POST {router}/v1/chat/completions`,
 * model "memory", temperature 0), with the caller's stamped headers. Any failure
 * (role_not_configured, router unreachable, a non-JSON answer) answers null, and the domain takes
 * its deterministic path.
 */
import { request } from 'undici';
import type { MemoryRole, StampedHeaders } from '../domain/ports.js';

/** How long one call may take, ms. */
const DEFAULT_TIMEOUT_MS = 20_000;

/** `MemoryRole` over the inference router. */
export class RouterMemoryRole implements MemoryRole {
  /** @param routerUrl base URL of the inference router. */
  constructor(private readonly routerUrl: string, private readonly timeoutMs = DEFAULT_TIMEOUT_MS) {}

  /** Ask the role; the JSON object of its answer (fences and prose around it ignored), or null. */
  async ask(headers: StampedHeaders, system: string, user: string): Promise<Record<string, unknown> | null> {
    try {
      const res = await request(`${this.routerUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'memory', temperature: 0, messages: [{ role: 'system', content: system }, { role: 'user', content: user }] }),
        headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs,
      });
      const text = await res.body.text();
      if (res.statusCode < 200 || res.statusCode >= 300) return null;
      return jsonObjectOf(text);
    } catch {
      return null;
    }
  }
}

/**
 * The JSON object in the first choice of a chat completion body (code fences stripped, the
 * outermost `{...}` taken). @returns null when there is none. @throws SyntaxError on a body that is not JSON.
 */
export function jsonObjectOf(completionBody: string): Record<string, unknown> | null {
  const body = JSON.parse(completionBody) as { choices?: Array<{ message?: { content?: unknown } }> };
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== 'string') return null;
  const m = /\{[\s\S]*\}/.exec(content.replace(/```(?:json)?/g, ''));
  if (!m) return null;
  const parsed = JSON.parse(m[0]) as unknown;
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed as Record<string, unknown> : null;
}
