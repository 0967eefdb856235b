/**
 * Base URL normalisation for provider registration (spec "Inference router": trims whitespace and
 * trailing slash, defaults to https when no scheme, strips pasted endpoint suffixes). Pure.
 */

/** Endpoint suffixes people paste by mistake, longest first. */
const SUFFIXES = ['/chat/completions', '/completions', '/responses', '/embeddings', '/models'];

/** Why a base URL was refused. */
export class BaseUrlError extends Error {
  constructor(message: string) { super(message); this.name = 'BaseUrlError'; }
}

/**
 * Normalise a pasted base URL: trim, add `https://` when no scheme, drop query, fragment and
 * credentials-free trailing slashes, and strip endpoint suffixes (`/chat/completions`, `/models`, ...).
 * The path otherwise stays (e.g. `/v1`, `/openai/v1`).
 * @example normalizeBaseUrl('  api.example.com/v1/chat/completions/ ') // 'https://api.example.com/v1'
 * @throws BaseUrlError when the value is empty, not a URL, not http(s), or carries credentials.
 */
export function normalizeBaseUrl(raw: string): string {
  let s = raw.trim();
  if (!s) throw new BaseUrlError('base_url is empty');
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) s = `https://${s}`;
  let u: URL;
  try { u = new URL(s); } catch { throw new BaseUrlError(`base_url "${raw.trim()}" is not a URL`); }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new BaseUrlError(`base_url must use http or https, not ${u.protocol.slice(0, -1)}`);
  if (u.username || u.password) throw new BaseUrlError('base_url must not carry credentials; pass the key as api_key');
  if (!u.hostname) throw new BaseUrlError('base_url has no host');
  let path = u.pathname.replace(/\/+$/, '');
  for (let changed = true; changed;) {
    changed = false;
    for (const suf of SUFFIXES) {
      if (path.toLowerCase().endsWith(suf)) { path = path.slice(0, -suf.length).replace(/\/+$/, ''); changed = true; }
    }
  }
  return `${u.protocol}//${u.host}${path}`;
}
