/**
 * Provider API key storage (issue 4: OS keychain, or an encrypted file where no keychain service
 * runs). `SecretStore` is the seam a keytar-backed store plugs into; this build ships the encrypted
 * file: AES-256-GCM per value, key = HKDF-SHA256 of a random 32-byte master key kept in
 * `<dataDir>/secrets/inference-master.key` (0600), AAD = the provider id (a value cannot be moved to
 * another provider). Values never leave through a route.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SecretStoreKind } from '../contracts.js';

/** Where provider keys are kept. Synchronous: values are small and local. */
export interface SecretStore {
  readonly kind: SecretStoreKind;
  get(id: string): string | null;
  set(id: string, value: string): void;
  delete(id: string): void;
}

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
    this.file = join(dir, 'inference-provider-keys.json');
    this.values = existsSync(this.file) ? JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, Sealed> : {};
  }

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
