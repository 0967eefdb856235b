/**
 * Secret storage of the desktop shell (DESIGN.md "Real parts": OS keychain through keytar,
 * encrypted file when no keychain service exists, reported as such).
 *
 * keytar is not installed on this project's machines, so `openSecretStore` loads it dynamically and
 * falls back to `EncryptedFileStore`: AES-256-GCM over a JSON map, file mode 0600. Its data key is
 * wrapped by Electron's `safeStorage` (DPAPI, Keychain, libsecret/kwallet) when that is available;
 * otherwise it sits in a 0600 key file next to the data, which protects against other users but
 * not against the same user; `kind` and `keyProtection` say which, and the UI can show it.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A place for the shell's few secrets (the refresh token). */
export interface SecretStore {
  readonly kind: 'keychain' | 'encrypted-file';
  get(name: string): Promise<string | null>;
  set(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
}

/** The part of Electron's `safeStorage` used to wrap the data key. */
export interface KeyWrapper {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(cipher: Buffer): string;
}

function writeAtomic(file: string, data: string | Buffer): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/**
 * The data key of the encrypted file: created once (32 random bytes), kept in `keyFile` either
 * wrapped by `wrapper` (`{wrapped: base64}`) or raw (`{raw: base64}`) when no OS encryption exists.
 */
export function loadDataKey(keyFile: string, wrapper: KeyWrapper | null): { key: Buffer; protection: 'os' | 'file-permissions' } {
  const osOk = wrapper?.isEncryptionAvailable() === true;
  if (existsSync(keyFile)) {
    const doc = JSON.parse(readFileSync(keyFile, 'utf8')) as { wrapped?: string; raw?: string };
    if (doc.wrapped) {
      if (!osOk) throw new Error('the secret store key is wrapped by the OS keychain, which is not available now');
      return { key: Buffer.from(wrapper!.decryptString(Buffer.from(doc.wrapped, 'base64')), 'base64'), protection: 'os' };
    }
    if (doc.raw) return { key: Buffer.from(doc.raw, 'base64'), protection: 'file-permissions' };
    throw new Error('the secret store key file is malformed');
  }
  const key = randomBytes(32);
  const doc = osOk ? { wrapped: wrapper!.encryptString(key.toString('base64')).toString('base64') } : { raw: key.toString('base64') };
  writeAtomic(keyFile, JSON.stringify(doc));
  return { key, protection: osOk ? 'os' : 'file-permissions' };
}

/** AES-256-GCM encrypted JSON map in one file (`{v:1, iv, tag, data}` base64). */
export class EncryptedFileStore implements SecretStore {
  readonly kind = 'encrypted-file' as const;
  constructor(private readonly file: string, private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('EncryptedFileStore needs a 32-byte key');
  }

  private readAll(): Record<string, string> {
    if (!existsSync(this.file)) return {};
    const doc = JSON.parse(readFileSync(this.file, 'utf8')) as { v: number; iv: string; tag: string; data: string };
    if (doc.v !== 1) throw new Error('unknown secret file version');
    const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(doc.iv, 'base64'));
    d.setAuthTag(Buffer.from(doc.tag, 'base64'));
    const plain = Buffer.concat([d.update(Buffer.from(doc.data, 'base64')), d.final()]);
    return JSON.parse(plain.toString('utf8')) as Record<string, string>;
  }

  private writeAll(map: Record<string, string>): void {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([c.update(JSON.stringify(map), 'utf8'), c.final()]);
    writeAtomic(this.file, JSON.stringify({ v: 1, iv: iv.toString('base64'), tag: c.getAuthTag().toString('base64'), data: data.toString('base64') }));
  }

  async get(name: string): Promise<string | null> { return this.readAll()[name] ?? null; }
  async set(name: string, value: string): Promise<void> { this.writeAll({ ...this.readAll(), [name]: value }); }
  async delete(name: string): Promise<void> {
    const m = this.readAll();
    if (!(name in m)) return;
    delete m[name];
    this.writeAll(m);
  }
}

/** keytar's API (the subset used). */
interface Keytar {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

/** The OS keychain through keytar. */
export class KeytarStore implements SecretStore {
  readonly kind = 'keychain' as const;
  constructor(private readonly keytar: Keytar, private readonly service: string) {}
  get(name: string): Promise<string | null> { return this.keytar.getPassword(this.service, name); }
  async set(name: string, value: string): Promise<void> { await this.keytar.setPassword(this.service, name, value); }
  async delete(name: string): Promise<void> { await this.keytar.deletePassword(this.service, name); }
}

/**
 * The keychain when keytar loads and answers, else the encrypted file under `dir`.
 * @param loadKeytar default: `import('keytar')` (a missing module or a missing Secret Service falls back)
 */
export async function openSecretStore(opts: {
  service: string; dir: string; wrapper: KeyWrapper | null; loadKeytar?: () => Promise<Keytar>; log?: (m: string) => void;
}): Promise<SecretStore & { keyProtection?: 'os' | 'file-permissions' }> {
  const load = opts.loadKeytar ?? (async () => {
    // A variable specifier: keytar is optional and not installed on the build machines.
    const name = 'keytar';
    const mod = await import(name) as { default?: Keytar } & Keytar;
    return mod.default ?? mod;
  });
  try {
    const kt = await load();
    await kt.getPassword(opts.service, '__probe__');
    return new KeytarStore(kt, opts.service);
  } catch (err) {
    opts.log?.(`keychain unavailable (${err instanceof Error ? err.message : String(err)}); using the encrypted file`);
  }
  const { key, protection } = loadDataKey(join(opts.dir, 'secrets', 'shell-key.json'), opts.wrapper);
  const store = new EncryptedFileStore(join(opts.dir, 'secrets', 'shell-secrets.json'), key);
  return Object.assign(store, { keyProtection: protection });
}
