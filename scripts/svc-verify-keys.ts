/**
 * Public keys for `scripts/svc-verify --public-key` (issue 22 item 4): Ed25519 verification with
 * node:crypto, and fetching a keys URL (`GET /v1/receipts/keys` of a workstation).
 *
 * The fetch runs on the reviewer's machine, so it is not the server's SSRF rule: loopback and
 * private addresses are allowed (a reviewer may well fetch from a workstation on their LAN or
 * their own machine, including its gateway port). It refuses what a reviewer never means:
 * schemes other than http(s), link-local addresses (169.254.0.0/16, fe80::/10: cloud metadata),
 * plain http to a public host (use https), redirects (not followed), answers over 1 MiB, and
 * anything slower than 10 s. A fetched key is trust on first use: compare its fingerprint with
 * the one the organisation distributed (docs/receipt-format-v2.md).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Largest keys answer read, bytes. */
export const MAX_KEYS_BYTES = 1024 * 1024;
/** Fetch timeout, ms. */
export const KEYS_FETCH_TIMEOUT_MS = 10_000;

const keyCache = new Map<string, KeyObject>();

/** Ed25519 verify over node:crypto (synchronous), for `verifyBundlePublicSync`. */
export function nodeEd25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const x = Buffer.from(publicKey).toString('base64url');
  let k = keyCache.get(x);
  if (!k) { k = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' }); keyCache.set(x, k); }
  if (signature.length !== 64) return false;
  return verify(null, message, k, signature);
}

/** Whether a `--public-key` value is a URL to fetch (http or https), not a file. */
export function isKeysUrl(v: string): boolean {
  return /^https?:\/\//i.test(v);
}

/** The address class that decides what the reviewer's fetch accepts. */
export function addressClass(ip: string): 'link-local' | 'loopback' | 'private' | 'public' {
  const v = isIP(ip);
  if (v === 4) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    if (a === 169 && b === 254) return 'link-local';
    if (a === 127) return 'loopback';
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return 'private';
    return 'public';
  }
  const low = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(low);
  if (mapped) return addressClass(mapped[1]!);
  if (low === '::1') return 'loopback';
  if (/^fe[89ab]/.test(low)) return 'link-local';
  if (/^f[cd]/.test(low)) return 'private';
  return 'public';
}

/**
 * Fetch a keys URL's text after checking where it points (see the module comment).
 * @throws Error naming the refusal or the HTTP failure.
 */
export async function fetchKeySet(url: string, lookupHost: (host: string) => Promise<string[]> = async (h) => (await lookup(h, { all: true })).map((a) => a.address)): Promise<string> {
  let u: URL;
  try { u = new URL(url); } catch { throw new Error(`${url} is not a URL`); }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`${url}: only http(s) URLs are fetched`);
  if (u.username || u.password) throw new Error(`${url}: credentials in the URL are refused`);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const addrs = isIP(host) ? [host] : await lookupHost(host);
  if (addrs.length === 0) throw new Error(`${host} does not resolve`);
  for (const a of addrs) {
    const cls = addressClass(a);
    if (cls === 'link-local') throw new Error(`${url}: ${a} is a link-local address; refused`);
    if (cls === 'public' && u.protocol === 'http:') throw new Error(`${url}: plain http to a public address; use https`);
  }
  const res = await fetch(u, { redirect: 'manual', signal: AbortSignal.timeout(KEYS_FETCH_TIMEOUT_MS), headers: { accept: 'application/json' } });
  if (res.status >= 300 && res.status < 400) throw new Error(`${url} redirects (${res.status}); redirects are not followed, give the final URL`);
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  const buf = Buffer.from(await res.arrayBuffer());
  if (buf.length > MAX_KEYS_BYTES) throw new Error(`${url}: answer over ${MAX_KEYS_BYTES} bytes`);
  return buf.toString('utf8');
}
