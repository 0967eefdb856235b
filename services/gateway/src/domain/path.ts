/**
 * One reading of a request path (issue 11 "One reading of a path"; RFC 3986 §6.2.2 and §5.2.4).
 *
 * The gateway normalises the path once, before routing, the admin guard and proxying, and forwards
 * exactly the path it checked, so a service can never see a different path than the guard did
 * (`/v1/%61dmin/...` was `/v1/admin/...` to the runtime but not to the guard). Normalising:
 * percent-encoded unreserved characters (`A-Z a-z 0-9 - . _ ~`) are decoded, repeated slashes
 * collapse to one, and `.` / `..` segments are removed. An encoded slash or backslash (`%2F`,
 * `%5C`), an encoded NUL, or a malformed escape is refused: there is no safe single reading of it.
 */

/** Why a path has no single reading. */
export type PathRefusal = 'encoded_separator' | 'malformed_escape';

/** The normalised path, or why it is refused. */
export type NormalisedPath = { ok: true; path: string } | { ok: false; reason: PathRefusal };

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * Normalise `raw`, the path part of a request target (no query), which starts with `/`.
 * Paths with no `%`, no `//` and no dot segment are returned as they are (the hot path).
 */
export function normalisePath(raw: string): NormalisedPath {
  if (!raw.includes('%') && !raw.includes('//') && !raw.includes('/.')) return { ok: true, path: raw };
  let decoded = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c !== '%') { decoded += c; continue; }
    const hex = raw.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return { ok: false, reason: 'malformed_escape' };
    const code = parseInt(hex, 16);
    if (code === 0x2f || code === 0x5c || code === 0x00) return { ok: false, reason: 'encoded_separator' };
    const ch = String.fromCharCode(code);
    decoded += UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
    i += 2;
  }
  const out: string[] = [];
  const segments = decoded.split('/');
  const trailing = segments.length > 1 && (segments[segments.length - 1] === '' || segments[segments.length - 1] === '.' || segments[segments.length - 1] === '..');
  for (const seg of segments) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') { out.pop(); continue; }
    out.push(seg);
  }
  const path = `/${out.join('/')}${trailing && out.length > 0 ? '/' : ''}`;
  return { ok: true, path };
}
