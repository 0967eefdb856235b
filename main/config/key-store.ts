/**
 * The rotated HMAC key store (issue 19 item 3): `<dataDir>/secrets/rotated-keys.json` (mode 0600)
 * holds, per kind (`principal`, `captoken`, `audit`), every key version newest first with its dates.
 * It is written by `POST /v1/admin/secrets/{kind}/rotate` (through the supervisor) and read by
 * `loadStackConfig`, where it WINS over the environment: the store's newest key signs, every older
 * key (retired or adopted from the environment at the first rotation) verifies, and an environment
 * key the store does not know is kept at the end, for verification only.
 *
 * Never logs or returns key values; listings carry fingerprints only.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KeyVersionInfo } from '../../services/shared/key-admin.js';
import { ConfigError } from './env.js';

/** The HMAC kinds this store holds (the receipt key pair lives in audit's own store). */
export type HmacKind = 'principal' | 'captoken' | 'audit';

/** One stored key version. `source` says whether the admin rotated it in or it was adopted from the environment. */
export interface StoredKey {
  version: string;
  key: string;
  created_at: string | null;
  retired_at: string | null;
  source: 'rotated' | 'environment';
}

/** The file's content: each kind's keys, newest first (a kind never rotated is absent). */
export type KeyStoreContent = Partial<Record<HmacKind, StoredKey[]>>;

/** Path of the store under a data directory. */
export function keyStoreFile(dataDir: string): string {
  return join(dataDir, 'secrets', 'rotated-keys.json');
}

/** Read the store (empty when the file does not exist). @throws ConfigError when it is not valid JSON. */
export function readKeyStore(dataDir: string): KeyStoreContent {
  const f = keyStoreFile(dataDir);
  if (!existsSync(f)) return {};
  try {
    return JSON.parse(readFileSync(f, 'utf8')) as KeyStoreContent;
  } catch {
    throw new ConfigError(`${f} is not valid JSON; restore it from a backup or remove it to fall back to the environment's keys`);
  }
}

/** Write the store atomically (temporary file, mode 0600, renamed over). */
export function writeKeyStore(dataDir: string, content: KeyStoreContent): void {
  const f = keyStoreFile(dataDir);
  mkdirSync(dirname(f), { recursive: true, mode: 0o700 });
  const tmp = `${f}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(content, null, 2), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, f);
}

/** `sha256:` and the first 16 hex digits of the SHA-256 of a key: enough to tell versions apart, never the key. */
export function hmacFingerprint(key: string): string {
  return `sha256:${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 16)}`;
}

/** A fresh version label: `r` + UTC time to the second + 4 random hex digits (sorts by time, never reuses a label). */
export function newKeyVersion(now: Date): string {
  return `r${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${randomBytes(2).toString('hex')}`;
}

/** A fresh random HMAC key (32 bytes, base64url: 43 characters). */
export function newHmacKey(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The effective key list of a kind: the store's keys (newest first) when it has the kind, followed
 * by any environment key it does not hold; else the environment's keys as they are.
 * @param envKeys the environment's keys, newest first, as `StoredKey`s (source `environment`).
 */
export function effectiveKeys(store: KeyStoreContent, kind: HmacKind, envKeys: StoredKey[]): StoredKey[] {
  const stored = store[kind];
  if (!stored || stored.length === 0) return envKeys;
  const known = new Set(stored.map((k) => k.key));
  return [...stored, ...envKeys.filter((k) => !known.has(k.key)).map((k) => ({ ...k, retired_at: k.retired_at }))];
}

/** Environment keys of a list kind (principal, captoken), labelled `env-1`, `env-2`, ... newest first. */
export function envListKeys(keys: readonly string[]): StoredKey[] {
  return keys.map((key, i) => ({ version: `env-${i + 1}`, key, created_at: null, retired_at: null, source: 'environment' as const }));
}

/**
 * Rotate a kind: a new random key signs from now on, the keys in force before are kept (the active
 * one gets `retired_at` = now) and the whole list is persisted, so it wins over the environment
 * after a restart. Returns the new list, newest first.
 * @param current the kind's effective keys now (`effectiveKeys`).
 */
export function rotateHmacKind(dataDir: string, kind: HmacKind, current: StoredKey[], now: Date = new Date()): StoredKey[] {
  const at = now.toISOString();
  const taken = new Set(current.map((k) => k.version));
  let version = newKeyVersion(now);
  while (taken.has(version)) version = newKeyVersion(now);
  const next: StoredKey[] = [
    { version, key: newHmacKey(), created_at: at, retired_at: null, source: 'rotated' },
    ...current.map((k) => (k.retired_at ? k : { ...k, retired_at: at })),
  ];
  const store = readKeyStore(dataDir);
  store[kind] = next;
  writeKeyStore(dataDir, store);
  return next;
}

/** The listing of a kind's keys (no key values): the first is the active one. */
export function listHmacKeys(keys: readonly StoredKey[]): KeyVersionInfo[] {
  return keys.map((k, i) => ({
    version: k.version, fingerprint: hmacFingerprint(k.key), created_at: k.created_at,
    retired_at: i === 0 ? null : k.retired_at, active: i === 0, source: k.source,
  }));
}

/** Audit key material of the config from an effective key list: the first signs, the second is "previous", the rest retired. */
export function auditMaterial(keys: readonly StoredKey[]): {
  signingKey: string; keyVersion: string; previousSigningKey: string | null; previousKeyVersion: string | null; retiredKeys: Array<{ version: string; key: string }>;
} {
  const [active, previous, ...rest] = keys;
  return {
    signingKey: active!.key, keyVersion: active!.version,
    previousSigningKey: previous?.key ?? null, previousKeyVersion: previous?.version ?? null,
    retiredKeys: rest.map((k) => ({ version: k.version, key: k.key })),
  };
}

/** The environment's audit keys as `StoredKey`s (active, then previous when set). */
export function envAuditKeys(a: { signingKey: string; keyVersion: string; previousSigningKey: string | null; previousKeyVersion: string | null }): StoredKey[] {
  const out: StoredKey[] = [{ version: a.keyVersion, key: a.signingKey, created_at: null, retired_at: null, source: 'environment' }];
  if (a.previousSigningKey && a.previousKeyVersion) out.push({ version: a.previousKeyVersion, key: a.previousSigningKey, created_at: null, retired_at: null, source: 'environment' });
  return out;
}

/**
 * Apply the store to the environment's keys (called by `loadStackConfig`): rotated keys win.
 * @returns the effective principal and capability token key lists and the audit key material.
 */
export function applyRotatedKeys(dataDir: string, env: {
  principalKeys: string[]; capTokenKeys: string[];
  audit: { signingKey: string; keyVersion: string; previousSigningKey: string | null; previousKeyVersion: string | null };
}): { principalKeys: string[]; capTokenKeys: string[]; audit: ReturnType<typeof auditMaterial> } {
  const store = readKeyStore(dataDir);
  return {
    principalKeys: effectiveKeys(store, 'principal', envListKeys(env.principalKeys)).map((k) => k.key),
    capTokenKeys: effectiveKeys(store, 'captoken', envListKeys(env.capTokenKeys)).map((k) => k.key),
    audit: auditMaterial(effectiveKeys(store, 'audit', envAuditKeys(env.audit))),
  };
}

/**
 * First-start secrets: when a key variable is not set at all outside production, a random key is
 * generated once and kept in `<dataDir>/secrets/generated.json` (mode 0600), so a laptop install
 * starts with no configuration. A variable that is set must hold a usable value.
 */
export function generatedSecrets(dataDir: string): { get(name: string): string } {
  const file = join(dataDir, 'secrets', 'generated.json');
  let cache: Record<string, string> | null = null;
  return {
    get(name: string): string {
      if (!cache) {
        cache = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as Record<string, string> : {};
      }
      let v = cache[name];
      if (!v) {
        v = randomBytes(32).toString('base64url');
        cache[name] = v;
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        writeFileSync(file, JSON.stringify(cache, null, 2), { mode: 0o600 });
        chmodSync(file, 0o600);
      }
      return v;
    },
  };
}
