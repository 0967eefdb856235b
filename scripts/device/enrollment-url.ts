/**
 * The enrollment URL the desktop's QR code encodes (issue 14 item 1; /work/2fa-brief.md "Enrollment
 * URL"): `{public_url}/m/#pair?token=<enrollment token>&fp=<TLS fingerprint or empty>`. The token
 * rides in the fragment, so it never reaches a server log.
 */

/** What an enrollment URL carries. */
export interface EnrollmentLink {
  /** Where the device API lives: the URL's origin plus any path prefix before `/m/` (no trailing slash). */
  apiBase: string;
  /** The enrollment token (JWS compact, `typ: svc-enroll+jwt`). */
  token: string;
  /** SHA-256 of the workstation certificate's DER, lowercase hex without colons; '' on plain http. */
  fingerprint: string;
}

/** The fragment prefix of an enrollment URL. */
export const PAIR_FRAGMENT = '#pair?';

/**
 * Parse an enrollment URL.
 * @throws Error (message names what is wrong) for a URL that is not http(s), has no `/m/` path or no
 *   `#pair?token=`, or whose `fp` is not 64 hex digits.
 */
export function parseEnrollmentUrl(text: string): EnrollmentLink {
  let url: URL;
  try { url = new URL(text.trim()); } catch { throw new Error('not a URL'); }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('the enrollment URL must be http or https');
  if (!url.hash.startsWith(PAIR_FRAGMENT)) throw new Error('the enrollment URL has no #pair? fragment');
  const params = new URLSearchParams(url.hash.slice(PAIR_FRAGMENT.length));
  const token = params.get('token') ?? '';
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) throw new Error('the enrollment URL carries no enrollment token');
  const fingerprint = normaliseFingerprint(params.get('fp') ?? '');
  if (fingerprint === null) throw new Error('the fingerprint in the enrollment URL is not a SHA-256 hex digest');
  const at = url.pathname.lastIndexOf('/m/');
  if (at < 0 && !url.pathname.endsWith('/m')) throw new Error('the enrollment URL does not point at the phone app (/m/)');
  const prefix = url.pathname.slice(0, at < 0 ? url.pathname.length - 2 : at).replace(/\/+$/, '');
  return { apiBase: `${url.origin}${prefix}`, token, fingerprint };
}

/**
 * A certificate fingerprint as the protocol writes it (lowercase hex, no colons): accepts upper case
 * and colon-separated input; '' stays ''; anything else is null.
 */
export function normaliseFingerprint(fp: string): string | null {
  const hex = fp.replace(/:/g, '').toLowerCase();
  if (hex === '') return '';
  return /^[0-9a-f]{64}$/.test(hex) ? hex : null;
}
