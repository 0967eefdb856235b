/**
 * The key that encrypts de-identification values at rest: 32 random bytes, base64, in
 * `<dbDir>/guardrail-deid.key` (created mode 0600 on first start; an in-memory store gets a fresh
 * key per start).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** File name of the key in the db folder. */
export const DEID_KEY_FILE = 'guardrail-deid.key';

/** Load the key, creating it on first start. @throws Error when the file does not hold a 32-byte key. */
export function loadDeidKey(dbDir: string): Buffer {
  if (dbDir === ':memory:') return randomBytes(32);
  mkdirSync(dbDir, { recursive: true });
  const file = join(dbDir, DEID_KEY_FILE);
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key`);
  return key;
}
