/**
 * The phone app's reading of its own address (issue 14 item 7; /work/2fa-brief.md "Enrollment
 * URL"): `{public_url}/m/#pair?token=<enrollment token>&fp=<fingerprint or empty>`. The API base is
 * the page's origin plus any path prefix before `/m/`. Plain TypeScript, unit-tested in Node.
 */

/** An enrollment link read from the page address. */
export interface PairLink { token: string; fingerprint: string }

/** The fragment prefix of an enrollment URL. */
export const PAIR_FRAGMENT = '#pair?';

/** The pairing request in `hash` (`location.hash`), or null when the page was opened without one. */
export function pairLinkOf(hash: string): PairLink | null {
  if (!hash.startsWith(PAIR_FRAGMENT)) return null;
  const p = new URLSearchParams(hash.slice(PAIR_FRAGMENT.length));
  const token = p.get('token') ?? '';
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) return null;
  const fp = (p.get('fp') ?? '').replace(/:/g, '').toLowerCase();
  return { token, fingerprint: /^[0-9a-f]{64}$/.test(fp) ? fp : '' };
}

/** The API base for a page at `origin` + `pathname`: the origin and the path before `/m/` (no trailing slash). */
export function apiBaseOf(origin: string, pathname: string): string {
  const at = pathname.lastIndexOf('/m/');
  const prefix = at >= 0 ? pathname.slice(0, at) : pathname.replace(/\/m$/, '').replace(/\/+$/, '');
  return `${origin}${prefix}`;
}

/** A fingerprint grouped for reading aloud and comparing: `AB:CD:EF:...` in upper case, 8 pairs a line. */
export function fingerprintLines(fp: string): string[] {
  const pairs = fp.toUpperCase().match(/../g) ?? [];
  const lines: string[] = [];
  for (let i = 0; i < pairs.length; i += 8) lines.push(pairs.slice(i, i + 8).join(':'));
  return lines;
}

/** The enrollment token's claims the phone shows and echoes (read, not verified). Null when malformed. */
export function enrollmentClaims(token: string): { enrollment_id: string; nonce: string; exp: number; iss: string } | null {
  try {
    const part = token.split('.')[1]!;
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '='));
    const c = JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (ch) => ch.charCodeAt(0)))) as Record<string, unknown>;
    if (typeof c.jti !== 'string' || typeof c.nonce !== 'string') return null;
    return { enrollment_id: c.jti, nonce: c.nonce, exp: typeof c.exp === 'number' ? c.exp : 0, iss: typeof c.iss === 'string' ? c.iss : '' };
  } catch { return null; }
}

/** A default device name from the browser's user agent ("iPhone", "Android phone", ...), at most 64 characters. */
export function defaultDeviceName(userAgent: string): string {
  if (/iPhone/.test(userAgent)) return 'iPhone';
  if (/iPad/.test(userAgent)) return 'iPad';
  if (/Android/.test(userAgent)) return 'Android phone';
  return 'Phone';
}
