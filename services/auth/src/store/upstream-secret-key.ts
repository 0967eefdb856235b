/**
 * Sealing of upstream IdP client secrets at rest (issue 15 item 2): AES-256-GCM with a 32-byte key
 * in `<dataDir>/secrets/upstream-sso.key` (mode 0600 in a 0700 directory, created on first start).
 * A sealed value is `v1.` + base64url(12-byte IV | 16-byte tag | ciphertext); the alias is bound as
 * additional data, so a sealed secret cannot be moved to another IdP's row.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SecretSealer } from '../domain/upstream-broker.js';

/** File name of the key under `<dataDir>/secrets/`. */
export const UPSTREAM_SSO_KEY_FILE = 'upstream-sso.key';

/** Load the 32-byte key at `file`, creating it first when absent. */
export function loadOrCreateUpstreamKey(file: string): Buffer {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  chmodSync(file, 0o600);
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key`);
  return key;
}

/** AES-256-GCM `SecretSealer`. */
export class AesGcmSealer implements SecretSealer {
  constructor(private readonly key: Buffer) {}

  seal(plain: string, context: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(context));
    const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return `v1.${Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url')}`;
  }

  open(sealed: string, context: string): string {
    if (!sealed.startsWith('v1.')) throw new Error('unknown sealed-secret format');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    const d = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    d.setAAD(Buffer.from(context));
    d.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
  }
}
