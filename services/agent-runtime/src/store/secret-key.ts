/**
 * The data key of user and tenant secrets (issue 13 item 3: "values encrypted at rest with a key held
 * in the OS keychain where one answers"), chosen the way the inference router keeps provider keys
 * (services/inference-router/src/store/secret-store.ts), through native/keychain.ts:
 *
 * - `os_keychain` when keytar loads and a keychain service answers: one entry, service
 *   `KEYCHAIN_SERVICE`, account `KEYCHAIN_ACCOUNT`, holding the 32-byte key in base64. A key left in
 *   the key file by an earlier keychain-less start is moved into the keychain (read back, then the
 *   file is removed); when both hold different keys the keychain's seals new values and the file's
 *   still opens the values sealed with it.
 * - `encrypted_file` otherwise (or SVC_SECRET_STORE=file): `<dataDir>/secrets/agent-runtime-secrets.key`,
 *   a random 32-byte key in base64, mode 0600 in a 0700 folder.
 *
 * Keys are named by `keyId` (a hash prefix, not the key) so each row says which key sealed it. Key
 * material is never logged.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openKeychain, type Keychain } from '../../../../native/keychain.js';
import type { SecretKeyStoreKind } from '../contracts.js';
import type { DataKeyring } from '../domain/secrets.js';

/** Keychain service of the runtime's secrets key. */
export const KEYCHAIN_SERVICE = 'svc-workstation.agent-runtime';
/** Keychain account holding the data key. */
export const KEYCHAIN_ACCOUNT = 'secrets-data-key';

/** The key file under `<dataDir>`. */
export const keyFileOf = (dataDir: string): string => join(dataDir, 'secrets', 'agent-runtime-secrets.key');

/** The id of a key: the first 16 hex digits of a domain-separated sha256 (reveals nothing usable). */
export function keyId(key: Buffer): string {
  return createHash('sha256').update('svc agent-runtime secrets key id v1\u0000').update(key).digest('hex').slice(0, 16);
}

function decode(text: string, where: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new Error(`${where} does not hold a 32-byte key`);
  return key;
}

function readFileKey(dataDir: string): Buffer | null {
  const file = keyFileOf(dataDir);
  if (!existsSync(file)) return null;
  chmodSync(file, 0o600);
  return decode(readFileSync(file, 'utf8'), file);
}

function createFileKey(dataDir: string): Buffer {
  const file = keyFileOf(dataDir);
  mkdirSync(join(dataDir, 'secrets'), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64'), { mode: 0o600, flag: 'wx' });
  return key;
}

function ring(kind: SecretKeyStoreKind, primary: Buffer, others: Buffer[] = []): DataKeyring {
  const keys = new Map([primary, ...others].map((k) => [keyId(k), k] as const));
  return { kind, primary: { id: keyId(primary), key: primary }, key: (id) => keys.get(id) ?? null };
}

/** Where `openDataKeyring` reports its choice (a pino logger fits). Never given key material. */
export interface KeyringLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Options of `openDataKeyring`. */
export interface OpenKeyringOptions {
  /** SVC_SECRET_STORE: `auto` (default), `keychain` (required), or `file` (never the keychain). */
  mode?: 'auto' | 'keychain' | 'file';
  log?: KeyringLog;
  /** Open the keychain (default native/keychain.ts `openKeychain`; tests inject). */
  openKeychain?: (service: string, onUnavailable: (reason: string) => void) => Promise<Keychain | null>;
}

/**
 * The data keyring: the key in the OS keychain when one answers, else the key file.
 * @throws Error when SVC_SECRET_STORE=keychain and no keychain answers, or a stored key is malformed.
 */
export async function openDataKeyring(dataDir: string, opts: OpenKeyringOptions = {}): Promise<DataKeyring> {
  const fileKey = readFileKey(dataDir);
  if (opts.mode === 'file') {
    opts.log?.info({ secret_store: 'encrypted_file' }, 'the secrets data key is kept in a 0600 key file (SVC_SECRET_STORE=file)');
    return ring('encrypted_file', fileKey ?? createFileKey(dataDir));
  }
  let reason = 'unknown';
  const open = opts.openKeychain ?? ((svc, onUnavailable) => openKeychain(svc, { onUnavailable }));
  const chain = await open(KEYCHAIN_SERVICE, (r) => { reason = r; });
  if (!chain) {
    if (opts.mode === 'keychain') throw new Error(`SVC_SECRET_STORE=keychain but no OS keychain answers: ${reason}`);
    opts.log?.warn({ secret_store: 'encrypted_file', reason }, 'OS keychain unavailable; the secrets data key is kept in a 0600 key file');
    return ring('encrypted_file', fileKey ?? createFileKey(dataDir));
  }
  const stored = await chain.get(KEYCHAIN_ACCOUNT);
  if (stored !== null) {
    const key = decode(stored, `keychain entry ${KEYCHAIN_SERVICE}/${KEYCHAIN_ACCOUNT}`);
    if (fileKey && keyId(fileKey) === keyId(key)) rmSync(keyFileOf(dataDir), { force: true });
    else if (fileKey) opts.log?.warn({ secret_store: 'os_keychain' }, 'the secrets key file holds another key than the keychain; it is kept to open the values sealed with it');
    opts.log?.info({ secret_store: 'os_keychain', service: KEYCHAIN_SERVICE }, 'the secrets data key is kept in the OS keychain');
    return ring('os_keychain', key, fileKey && keyId(fileKey) !== keyId(key) ? [fileKey] : []);
  }
  const key = fileKey ?? randomBytes(32);
  await chain.set(KEYCHAIN_ACCOUNT, key.toString('base64'));
  const back = await chain.get(KEYCHAIN_ACCOUNT);
  if (back === null || keyId(decode(back, 'keychain read-back')) !== keyId(key)) throw new Error('the keychain did not keep the secrets data key');
  if (fileKey) {
    rmSync(keyFileOf(dataDir), { force: true });
    opts.log?.info({ secret_store: 'os_keychain' }, 'the secrets data key moved from the key file to the OS keychain');
  }
  opts.log?.info({ secret_store: 'os_keychain', service: KEYCHAIN_SERVICE }, 'the secrets data key is kept in the OS keychain');
  return ring('os_keychain', key);
}
