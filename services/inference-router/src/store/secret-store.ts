/**
 * Provider API key storage (issue 4: OS keychain, or an encrypted file where no keychain service
 * runs, reported as such). `openSecretStore` picks at start:
 *
 * - `KeychainSecretStore` (`os_keychain`) when keytar loads and a keychain service answers
 *   (native/keychain.ts): one entry per provider, service `KEYCHAIN_SERVICE`, account = provider id.
 *   Entries are read once at open into memory, so `get` stays synchronous for the snapshot; writes
 *   go to the keychain first and fail the admin call when the keychain refuses.
 *   Keys left in the encrypted file by an earlier keychain-less start are moved into the keychain.
 * - `EncryptedFileSecretStore` (`encrypted_file`) otherwise: AES-256-GCM per value, key =
 *   HKDF-SHA256 of a random 32-byte master key kept in `<dataDir>/secrets/inference-master.key`
 *   (0600), AAD = the provider id (a value cannot be moved to another provider).
 *
 * Values never leave through a route and are never logged.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openKeychain, type Keychain } from '../../../../native/keychain.js';
import type { SecretStore } from '../domain/ports.js';

export type { SecretStore } from '../domain/ports.js';

/** Keychain service name of the router's provider keys. */
export const KEYCHAIN_SERVICE = 'svc-workstation.inference-router';

const keyFileOf = (dataDir: string): string => join(dataDir, 'secrets', 'inference-provider-keys.json');

interface Sealed { iv: string; tag: string; ct: string }

/** AES-256-GCM encrypted JSON file of sealed values. */
export class EncryptedFileSecretStore implements SecretStore {
  readonly kind = 'encrypted_file' as const;
  private readonly file: string;
  private readonly key: Buffer;
  private values: Record<string, Sealed>;

  /** Open (creating the master key on first use) under `<dataDir>/secrets/`. */
  constructor(dataDir: string) {
    const dir = join(dataDir, 'secrets');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const keyFile = join(dir, 'inference-master.key');
    if (!existsSync(keyFile)) {
      writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    }
    chmodSync(keyFile, 0o600);
    const master = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
    if (master.length !== 32) throw new Error(`${keyFile} does not hold a 32-byte key`);
    this.key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'svc inference-router provider keys v1', 32));
    this.file = keyFileOf(dataDir);
    this.values = existsSync(this.file) ? JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, Sealed> : {};
  }

  /** Whether `<dataDir>` holds an encrypted key file (without creating anything). */
  static exists(dataDir: string): boolean { return existsSync(keyFileOf(dataDir)); }

  /** Ids with a stored value. */
  ids(): string[] { return Object.keys(this.values); }

  get(id: string): string | null {
    const s = this.values[id];
    if (!s) return null;
    const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(s.iv, 'base64'));
    d.setAAD(Buffer.from(id, 'utf8'));
    d.setAuthTag(Buffer.from(s.tag, 'base64'));
    return Buffer.concat([d.update(Buffer.from(s.ct, 'base64')), d.final()]).toString('utf8');
  }

  set(id: string, value: string): void {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(id, 'utf8'));
    const ct = Buffer.concat([c.update(value, 'utf8'), c.final()]);
    this.values = { ...this.values, [id]: { iv: iv.toString('base64'), tag: c.getAuthTag().toString('base64'), ct: ct.toString('base64') } };
    this.persist();
  }

  delete(id: string): void {
    if (!(id in this.values)) return;
    const { [id]: _gone, ...rest } = this.values;
    this.values = rest;
    this.persist();
  }

  private persist(): void {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.values), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}

/** Provider keys in the OS keychain, served from memory after one read at open. */
export class KeychainSecretStore implements SecretStore {
  readonly kind = 'os_keychain' as const;
  private constructor(private readonly chain: Keychain, private readonly cache: Map<string, string>) {}

  /** Read every entry of `chain` into memory. */
  static async open(chain: Keychain): Promise<KeychainSecretStore> {
    const all = await chain.list();
    return new KeychainSecretStore(chain, new Map(all.map((c) => [c.account, c.password])));
  }

  get(id: string): string | null { return this.cache.get(id) ?? null; }

  async set(id: string, value: string): Promise<void> {
    await this.chain.set(id, value);
    this.cache.set(id, value);
  }

  async delete(id: string): Promise<void> {
    await this.chain.delete(id);
    this.cache.delete(id);
  }
}

/** Where `openSecretStore` reports its choice (a pino logger fits). Never given values. */
export interface SecretStoreLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Options of `openSecretStore`. */
export interface OpenSecretStoreOptions {
  log?: SecretStoreLog;
  /** Keychain service name (default `KEYCHAIN_SERVICE`). */
  service?: string;
  /** Open the keychain (default native/keychain.ts `openKeychain`; tests inject). */
  openKeychain?: (service: string, onUnavailable: (reason: string) => void) => Promise<Keychain | null>;
  /** `auto` (default), `keychain` (required), or `file` (never the keychain). */
  mode?: 'auto' | 'keychain' | 'file';
}

/**
 * The OS keychain when one answers, else the encrypted file under `<dataDir>/secrets/`.
 * @throws Error when the chosen store cannot be read (a corrupt key file, a keychain that stops answering).
 */
export async function openSecretStore(dataDir: string, opts: OpenSecretStoreOptions = {}): Promise<SecretStore> {
  const service = opts.service ?? KEYCHAIN_SERVICE;
  if (opts.mode === 'file') {
    opts.log?.info({ secret_store: 'encrypted_file' }, 'provider API keys are kept in the encrypted file (SVC_SECRET_STORE=file)');
    return new EncryptedFileSecretStore(dataDir);
  }
  let reason = 'unknown';
  const open = opts.openKeychain ?? ((svc, onUnavailable) => openKeychain(svc, { onUnavailable }));
  const chain = await open(service, (r) => { reason = r; });
  if (!chain) {
    if (opts.mode === 'keychain') throw new Error(`SVC_SECRET_STORE=keychain but no OS keychain answers: ${reason}`);
    opts.log?.warn({ secret_store: 'encrypted_file', reason }, 'OS keychain unavailable; provider API keys are kept in the encrypted file');
    return new EncryptedFileSecretStore(dataDir);
  }
  const store = await KeychainSecretStore.open(chain);
  if (EncryptedFileSecretStore.exists(dataDir)) {
    const file = new EncryptedFileSecretStore(dataDir);
    const ids = file.ids();
    for (const id of ids) {
      await store.set(id, file.get(id)!);
      file.delete(id);
    }
    if (ids.length > 0) opts.log?.info({ moved: ids.length }, 'provider API keys moved from the encrypted file to the OS keychain');
  }
  opts.log?.info({ secret_store: 'os_keychain', service }, 'provider API keys are kept in the OS keychain');
  return store;
}
