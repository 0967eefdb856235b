/**
 * The gateway's TLS certificate on the LAN (issue 14 item 7; /work/2fa-brief.md "Crypto objects"):
 * browsers give WebCrypto only to secure contexts, so when `SVC_BIND_HOST` opens the gateway to the
 * network it serves HTTPS, with the operator's certificate (`SVC_TLS_CERT_FILE`, `SVC_TLS_KEY_FILE`)
 * or a self-signed one generated on first run by the `selfsigned` package (ECDSA P-256, SHA-256,
 * `serverAuth`, SAN = the LAN addresses, `localhost`, `127.0.0.1`).
 *
 * Files under `<dataDir>/tls/` (directory 0700):
 * - `cert.pem`, `key.pem` (0600): the generated pair. It is kept across restarts (so its fingerprint,
 *   which paired phones compared once, stays stable) while it matches its key, covers the required
 *   hosts, and is valid for more than `RENEW_BEFORE_DAYS`; otherwise a new pair replaces it.
 * - `fingerprint`: the fingerprint of the certificate the gateway SERVES right now, written when it
 *   starts on HTTPS and removed when it starts on plain HTTP (`recordServedFingerprint`). The auth
 *   service puts it in the enrollment URL (`tlsFingerprintOf`), so it is exact for an operator's
 *   certificate too, and empty on loopback.
 *
 * Fingerprint: SHA-256 of the certificate's DER, lowercase hex without colons (what the phone pins).
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

/** Lifetime of a generated certificate, days (within the 398 days browsers accept for server certificates). */
export const CERT_LIFETIME_DAYS = 397;
/** A generated certificate closer than this to its end is replaced at start, days. */
export const RENEW_BEFORE_DAYS = 30;
/** Subject common name of a generated certificate. */
export const CERT_COMMON_NAME = 'svc workstation';

const DAY_MS = 86_400_000;

/** Options of `loadOrCreateTlsCert`. */
export interface TlsCertOptions {
  /** The operator's certificate (PEM, may hold a chain), with `keyFile`; both or neither. */
  certFile?: string | null;
  /** The operator's private key (PEM). */
  keyFile?: string | null;
  /** Host names and IP addresses a generated certificate names (its SAN, with `localhost` and `127.0.0.1`). */
  hosts: readonly string[];
  /**
   * The hosts a kept certificate must still cover (default: all of `hosts`). The gateway passes its
   * public URL's host only, so a LAN address that came or went (a VPN, a second adapter) does not
   * replace the certificate and change the fingerprint paired phones compared.
   */
  required?: readonly string[];
  /** Current time (test seam). */
  now?: () => Date;
}

/** The certificate the gateway serves. */
export interface TlsMaterial {
  /** PEM certificate (chain). */
  cert: string;
  /** PEM private key. */
  key: string;
  /** SHA-256 of the (leaf) certificate's DER, lowercase hex, no colons. */
  fingerprint: string;
  /** Where it came from: the operator's files, the kept generated pair, or a pair generated now. */
  source: 'operator' | 'kept' | 'generated';
}

/** `<dataDir>/tls`. */
export function tlsDir(dataDir: string): string {
  return join(dataDir, 'tls');
}

/**
 * SHA-256 of a PEM certificate's DER (the first certificate of a chain), lowercase hex, no colons.
 * @throws Error when `pem` holds no parsable certificate.
 */
export function fingerprintOfPem(pem: string): string {
  return new X509Certificate(pem).fingerprint256.replace(/:/g, '').toLowerCase();
}

/**
 * The fingerprint of the certificate the gateway serves now, or null when it serves plain HTTP (or
 * has not started yet). Read from `<dataDir>/tls/fingerprint` on every call (a few bytes), so a
 * caller that started before the gateway sees it once the gateway is up.
 */
export function tlsFingerprintOf(dataDir: string): string | null {
  try {
    const fp = readFileSync(join(tlsDir(dataDir), 'fingerprint'), 'utf8').trim();
    return /^[0-9a-f]{64}$/.test(fp) ? fp : null;
  } catch {
    return null;
  }
}

/**
 * Record which certificate the gateway serves: its fingerprint, or null for plain HTTP (removes the
 * record). Called by the gateway at start.
 */
export function recordServedFingerprint(dataDir: string, fingerprint: string | null): void {
  const file = join(tlsDir(dataDir), 'fingerprint');
  if (fingerprint === null) { rmSync(file, { force: true }); return; }
  mkdirSync(tlsDir(dataDir), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${fingerprint}\n`, { mode: 0o644 });
}

/**
 * True when `certPem` matches `keyPem`, is valid from now until at least `RENEW_BEFORE_DAYS` ahead,
 * and covers every one of `hosts` (IP addresses by `checkIP`, names by `checkHost`).
 */
export function certCovers(certPem: string, keyPem: string, hosts: readonly string[], now: Date): boolean {
  try {
    const x = new X509Certificate(certPem);
    if (!x.checkPrivateKey(createPrivateKey(keyPem))) return false;
    if (Date.parse(x.validFrom) > now.getTime() || Date.parse(x.validTo) < now.getTime() + RENEW_BEFORE_DAYS * DAY_MS) return false;
    return hosts.every((h) => (isIP(h) ? x.checkIP(h) !== undefined : x.checkHost(h) !== undefined));
  } catch {
    return false;
  }
}

/**
 * The certificate and key the gateway serves on the LAN: the operator's files when given (checked to
 * be a matching pair), else the generated pair in `<dataDir>/tls/` when it still fits (see
 * `certCovers`), else a new self-signed pair written there (key 0600).
 * @throws Error naming the file when an operator file cannot be read, or the key does not match.
 */
export async function loadOrCreateTlsCert(dataDir: string, opts: TlsCertOptions): Promise<TlsMaterial> {
  if (opts.certFile || opts.keyFile) {
    if (!opts.certFile || !opts.keyFile) throw new Error('SVC_TLS_CERT_FILE and SVC_TLS_KEY_FILE go together');
    const read = (f: string): string => {
      try { return readFileSync(f, 'utf8'); } catch { throw new Error(`TLS file ${f} cannot be read`); }
    };
    const cert = read(opts.certFile);
    const key = read(opts.keyFile);
    let matches = false;
    try { matches = new X509Certificate(cert).checkPrivateKey(createPrivateKey(key)); } catch { /* unparsable: refused below */ }
    if (!matches) throw new Error(`the certificate in ${opts.certFile} does not match the key in ${opts.keyFile}`);
    return { cert, key, fingerprint: fingerprintOfPem(cert), source: 'operator' };
  }
  const now = (opts.now ?? (() => new Date()))();
  const dir = tlsDir(dataDir);
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  if (existsSync(certPath) && existsSync(keyPath)) {
    const cert = readFileSync(certPath, 'utf8');
    const key = readFileSync(keyPath, 'utf8');
    if (certCovers(cert, key, opts.required ?? opts.hosts, now)) return { cert, key, fingerprint: fingerprintOfPem(cert), source: 'kept' };
  }
  const { cert, key } = await generateSelfSigned(opts.hosts, now);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  writeFileSync(keyPath, key, { mode: 0o600 });
  chmodSync(keyPath, 0o600);
  writeFileSync(certPath, cert, { mode: 0o644 });
  return { cert, key, fingerprint: fingerprintOfPem(cert), source: 'generated' };
}

/**
 * A new self-signed ECDSA P-256 / SHA-256 server certificate for `hosts` (plus `localhost` and
 * `127.0.0.1`), valid from an hour ago for `CERT_LIFETIME_DAYS`. `selfsigned` loads only here.
 */
async function generateSelfSigned(hosts: readonly string[], now: Date): Promise<{ cert: string; key: string }> {
  const { generate } = await import('selfsigned');
  const names = [...new Set(['localhost', '127.0.0.1', ...hosts].map((h) => h.toLowerCase()))];
  const altNames = names.map((h) => (isIP(h) ? { type: 7 as const, ip: h } : { type: 2 as const, value: h }));
  const pems = await generate([{ name: 'commonName', value: CERT_COMMON_NAME }], {
    keyType: 'ec', curve: 'P-256', algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 3_600_000), notAfterDate: new Date(now.getTime() + CERT_LIFETIME_DAYS * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
