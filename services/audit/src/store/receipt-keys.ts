/**
 * The receipt signing key store (issue 22 item 1, issue 19 item 3 `receipt`): Ed25519 key pairs in
 * `<dataDir>/keys/receipt/`, generated on first run. `keyset.json` lists every key, newest first,
 * as `{kid, x, created_at, retired_at}` (public material only); each private key is
 * `<kid>.pem` (PKCS#8, mode 0600). A rotation adds a new key and stamps `retired_at` on the one
 * before; retired keys stay in the set so old receipts keep verifying.
 *
 * `kid` is the RFC 7638 JWK thumbprint (SHA-256, base64url) of the public key. Readers re-read the
 * set when the file changes (mtime and size), so a rotation by another thread of the same process
 * (the supervisor) is seen without a push. Writes go to a temporary file and are renamed over.
 */
import { createHash, createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One receipt key of the set (public material). */
export interface ReceiptKeyRecord {
  kid: string;
  /** The raw 32-byte public key, base64url (the JWK's `x`). */
  x: string;
  created_at: string;
  retired_at: string | null;
}

/** The folder of the receipt key store under a data directory. */
export function receiptKeyDir(dataDir: string): string {
  return join(dataDir, 'keys', 'receipt');
}

/** RFC 7638 thumbprint of an Ed25519 public key `x` (base64url): the key id. */
export function receiptKid(x: string): string {
  return createHash('sha256').update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x }), 'utf8').digest('base64url');
}

/** SHA-256 of the raw public key bytes, lowercase hex (the fingerprint an organisation distributes). */
export function receiptFingerprint(x: string): string {
  return createHash('sha256').update(Buffer.from(x, 'base64url')).digest('hex');
}

function setFile(dir: string): string { return join(dir, 'keyset.json'); }

function readSet(dir: string): ReceiptKeyRecord[] {
  const f = setFile(dir);
  if (!existsSync(f)) return [];
  const parsed = JSON.parse(readFileSync(f, 'utf8')) as { keys?: ReceiptKeyRecord[] };
  return Array.isArray(parsed.keys) ? parsed.keys : [];
}

function writeSet(dir: string, keys: ReceiptKeyRecord[]): void {
  const tmp = `${setFile(dir)}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, JSON.stringify({ keys }, null, 2), { mode: 0o644 });
  renameSync(tmp, setFile(dir));
}

function generate(dir: string, now: Date): ReceiptKeyRecord {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = (publicKey.export({ format: 'jwk' }) as { x: string }).x;
  const kid = receiptKid(x);
  const pem = join(dir, `${kid}.pem`);
  writeFileSync(pem, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
  chmodSync(pem, 0o600);
  return { kid, x, created_at: now.toISOString(), retired_at: null };
}

/**
 * The receipt key set, newest first, with a key generated when there is none yet (first run).
 * @throws Error when the folder cannot be created or the set is not JSON.
 */
export function ensureReceiptKeys(dataDir: string, now: Date = new Date()): ReceiptKeyRecord[] {
  const dir = receiptKeyDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const keys = readSet(dir);
  if (keys.length > 0) return keys;
  const first = generate(dir, now);
  writeSet(dir, [first]);
  return [first];
}

/**
 * Rotate: a new key pair signs from now on, the previous active key gets `retired_at` = now and
 * stays published. Returns the new set, newest first.
 */
export function rotateReceiptKey(dataDir: string, now: Date = new Date()): ReceiptKeyRecord[] {
  const dir = receiptKeyDir(dataDir);
  const keys = ensureReceiptKeys(dataDir, now);
  const next = generate(dir, now);
  const stamped = keys.map((k) => (k.retired_at ? k : { ...k, retired_at: now.toISOString() }));
  const out = [next, ...stamped];
  writeSet(dir, out);
  return out;
}

/**
 * A reader of the set that re-reads `keyset.json` only when its mtime or size changed; `signer()`
 * gives the active key's id and private key (for sealing, issue 22 item 2).
 */
export class ReceiptKeyStore {
  private cached: { stamp: string; keys: ReceiptKeyRecord[] } | null = null;
  private signerCache: { kid: string; key: KeyObject } | null = null;

  /** @param dataDir the data directory (the set lives in `keys/receipt/` under it). */
  constructor(private readonly dataDir: string) {}

  /** Every key, newest first (generated on first use when there is none). */
  keys(): ReceiptKeyRecord[] {
    const f = setFile(receiptKeyDir(this.dataDir));
    const st = existsSync(f) ? statSync(f) : null;
    const stamp = st ? `${st.mtimeMs}:${st.size}:${st.ino}` : '';
    if (this.cached && this.cached.stamp === stamp && stamp) return this.cached.keys;
    const keys = ensureReceiptKeys(this.dataDir);
    const st2 = statSync(f);
    this.cached = { stamp: `${st2.mtimeMs}:${st2.size}:${st2.ino}`, keys };
    return keys;
  }

  /** The active key's id and private key. @throws Error when its private key file is missing. */
  signer(): { kid: string; key: KeyObject } {
    const active = this.keys()[0]!;
    if (this.signerCache?.kid !== active.kid) {
      const pem = readFileSync(join(receiptKeyDir(this.dataDir), `${active.kid}.pem`), 'utf8');
      this.signerCache = { kid: active.kid, key: createPrivateKey(pem) };
    }
    return this.signerCache;
  }
}
