/**
 * Password hashing with scrypt (memory-hard, node:crypto, run off the event loop).
 *
 * Stored form: `scrypt$N$r$p$salt_b64$hash_b64` (standard base64, 16-byte salt, 32-byte key).
 * Verification parses the parameters from the stored string (so raising N later keeps old hashes
 * valid; `needsRehash` tells when to upgrade), bounds them (a corrupt row cannot ask for gigabytes),
 * and compares in constant time.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const KEY_LEN = 32;
const SALT_LEN = 16;
const R = 8;
const P = 1;
const MAX_N = 1 << 20;
const MAX_R = 32;
const MAX_P = 16;

/** Parsed parameters of a stored hash. */
interface Parsed { n: number; r: number; p: number; salt: Buffer; hash: Buffer }

function derive(password: string, salt: Buffer, n: number, r: number, p: number, len: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // Passwords typed on different systems may differ only in Unicode composition.
    scrypt(password.normalize('NFC'), salt, len, { N: n, r, p, maxmem: 256 * n * r + (1 << 20) }, (err, key) => {
      if (err) reject(err); else resolve(key);
    });
  });
}

function parse(stored: string): Parsed | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [n, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (!Number.isInteger(n) || n < 2 || n > MAX_N || (n & (n - 1)) !== 0) return null;
  if (!Number.isInteger(r) || r < 1 || r > MAX_R || !Number.isInteger(p) || p < 1 || p > MAX_P) return null;
  const salt = Buffer.from(parts[4]!, 'base64');
  const hash = Buffer.from(parts[5]!, 'base64');
  if (salt.length < 8 || hash.length < 16 || hash.length > 64) return null;
  return { n, r, p, salt, hash };
}

/** Hashes and verifies passwords at a configured cost. */
export class PasswordHasher {
  private dummy: Promise<string> | null = null;

  /** @param n scrypt cost N (power of two, from `AuthConfig.scryptN`). */
  constructor(private readonly n: number) {
    if (!Number.isInteger(n) || n < 2 || n > MAX_N || (n & (n - 1)) !== 0) throw new RangeError('scrypt N must be a power of two up to 2^20');
  }

  /** Hash `password` with a fresh salt. @returns `scrypt$N$r$p$salt_b64$hash_b64`. */
  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_LEN);
    const key = await derive(password, salt, this.n, R, P, KEY_LEN);
    return `scrypt$${this.n}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
  }

  /**
   * True when `password` matches `stored`. A null or malformed `stored` costs one scrypt all the
   * same (against a dummy hash) and returns false, so unknown accounts answer in the same time.
   */
  async verify(password: string, stored: string | null): Promise<boolean> {
    const parsed = stored === null ? null : parse(stored);
    if (!parsed) {
      const dummy = parse(await (this.dummy ??= this.hash(randomBytes(16).toString('hex'))))!;
      await derive(password, dummy.salt, dummy.n, dummy.r, dummy.p, dummy.hash.length);
      return false;
    }
    const key = await derive(password, parsed.salt, parsed.n, parsed.r, parsed.p, parsed.hash.length);
    return timingSafeEqual(key, parsed.hash);
  }

  /** True when `stored` uses other parameters than this hasher (upgrade it after a good login). */
  needsRehash(stored: string): boolean {
    const parsed = parse(stored);
    return !parsed || parsed.n !== this.n || parsed.r !== R || parsed.p !== P || parsed.hash.length !== KEY_LEN;
  }
}
