/**
 * Registration probe (spec "Inference router"): `GET {base_url}/models` before a provider is saved.
 * Redirects are never followed (the error names the target); an unreachable provider is reported
 * with the reason. When `{base_url}/models` is 404 and the URL has no `/v1`, `{base_url}/v1/models`
 * is tried once (people paste `http://host:11434` for Ollama or `http://host:8000` for vLLM). The
 * dispatcher is the outbound agent: a URL of the workstation's own is refused (`url_not_allowed`).
 */
import type { Dispatcher } from 'undici';
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { RegistrationErrorCode } from '../contracts.js';
import { readText, send } from './http.js';
import type { ProbeResult } from '../domain/registry.js';
import { UpstreamError } from '../domain/upstream.js';


/** The registration error of a failed probe (`provider_key_missing` in its `registration` situation). */
function registrationError(e: UpstreamError, base: string): DomainError<RegistrationErrorCode> {
  const err = (code: RegistrationErrorCode, message: string): DomainError<RegistrationErrorCode> => new DomainError(code, message, { situation: 'registration' });
  switch (e.kind) {
    case 'not_allowed': return err('url_not_allowed', `provider base URL ${e.message}`);
    case 'redirect': return err('provider_redirect', `provider base URL ${base}: ${e.message}. Register the target address if you trust it.`);
    case 'key_missing': return err('provider_key_missing', `${e.message}; pass api_key`);
    case 'auth': return err('provider_auth_failed', e.message);
    case 'unreachable': case 'timeout': return err('provider_unreachable', `provider unreachable: ${e.message}`);
    default: return err('provider_probe_failed', `probe of ${base}/models failed: ${e.message}`);
  }
}

async function list(d: Dispatcher, base: string, apiKey: string | null, timeoutMs: number): Promise<string[]> {
  const res = await send(d, `${base}/models`, { method: 'GET', apiKey, timeoutMs });
  let j: { data?: Array<{ id?: unknown }>; models?: Array<{ id?: unknown; name?: unknown }> };
  try { j = JSON.parse(await readText(res.body, 8 * 1024 * 1024)) as typeof j; } catch {
    throw new UpstreamError(`${base}/models did not answer JSON`, 'bad_response');
  }
  const items = Array.isArray(j.data) ? j.data : Array.isArray(j.models) ? j.models : null;
  if (!items) throw new UpstreamError(`${base}/models did not answer an OpenAI model list ({data: [...]})`, 'bad_response');
  return [...new Set(items.map((m) => (typeof m.id === 'string' ? m.id : typeof (m as { name?: unknown }).name === 'string' ? String((m as { name: string }).name) : '')).filter(Boolean))];
}

/**
 * Probe a normalised base URL.
 * @throws DomainError `url_not_allowed` (the URL reaches the workstation's own ports or a
 *   link-local address, issue 11 item 8) | `provider_redirect` | `provider_unreachable` |
 *   `provider_key_missing` | `provider_auth_failed` | `provider_probe_failed`.
 */
export async function probeProvider(d: Dispatcher, baseUrl: string, apiKey: string | null, timeoutMs: number): Promise<ProbeResult> {
  try {
    return { baseUrl, models: await list(d, baseUrl, apiKey, timeoutMs) };
  } catch (err) {
    if (!(err instanceof UpstreamError)) throw err;
    if (err.kind === 'model_missing' && !/\/v\d+$/.test(baseUrl)) {
      try {
        return { baseUrl: `${baseUrl}/v1`, models: await list(d, `${baseUrl}/v1`, apiKey, timeoutMs) };
      } catch { /* report the original failure */ }
    }
    throw registrationError(err, baseUrl);
  }
}
