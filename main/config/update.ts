/**
 * Update settings (issue 19 item 4), read from the environment:
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | SVC_UPDATE_PUBLIC_KEYS | (none) | extra trusted Ed25519 publisher keys, comma-separated, each base64 of the raw 32-byte key or of its SPKI DER |
 * | SVC_UPDATE_MANIFEST_URL | (none) | where `GET /v1/admin/update` checks for a newer version (JSON `{version, ...}`) |
 *
 * The keys shipped with the app are the `*.pub` PEM files of `assets/update-keys/`.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { ConfigError, str, type Env } from './env.js';

/** The update slice of the stack configuration. */
export interface UpdateSettings {
  /** Trusted Ed25519 publisher keys (shipped ones first), as SPKI PEM strings. */
  publicKeys: string[];
  /** The manifest URL of the connected check, or null. */
  manifestUrl: string | null;
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** An Ed25519 public key from base64 (raw 32 bytes or SPKI DER). @throws ConfigError when it is neither. */
function keyFromBase64(b64: string): KeyObject {
  const raw = Buffer.from(b64, 'base64');
  const der = raw.length === 32 ? Buffer.concat([ED25519_SPKI_PREFIX, raw]) : raw;
  try {
    const key = createPublicKey({ key: der, format: 'der', type: 'spki' });
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('not ed25519');
    return key;
  } catch {
    throw new ConfigError('SVC_UPDATE_PUBLIC_KEYS must hold Ed25519 public keys (base64 of 32 raw bytes or SPKI DER), comma-separated');
  }
}

/** Read the update settings; `root` is the repository / app root. @throws ConfigError on a malformed key or URL. */
export function readUpdateSettings(env: Env, root: string): UpdateSettings {
  const keys: string[] = [];
  const dir = join(root, 'assets', 'update-keys');
  if (existsSync(dir)) {
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.pub')).sort()) {
      keys.push(createPublicKey(readFileSync(join(dir, f), 'utf8')).export({ format: 'pem', type: 'spki' }).toString());
    }
  }
  for (const part of (str(env, 'SVC_UPDATE_PUBLIC_KEYS') || '').split(',').map((p) => p.trim()).filter(Boolean)) {
    keys.push(keyFromBase64(part).export({ format: 'pem', type: 'spki' }).toString());
  }
  const url = str(env, 'SVC_UPDATE_MANIFEST_URL') || null;
  if (url && !/^https?:\/\//.test(url)) throw new ConfigError('SVC_UPDATE_MANIFEST_URL must be an http(s) URL');
  return { publicKeys: keys, manifestUrl: url };
}

/** The launcher's settings (issue 19 item 4; main/update/launch.ts). */
export interface LaunchSettings {
  /** The version this process was launched as by a launcher (`SVC_LAUNCHED_VERSION`), or null: a top-level start. */
  launchedVersion: string | null;
  /** How long a launched version may take to print `svc ready`, ms (`SVC_UPDATE_READY_TIMEOUT_MS`, default 120000). */
  readyTimeoutMs: number;
}

/** Environment variable a launcher sets on the versioned process it starts (so it never launches again). */
export const LAUNCHED_VERSION_ENV = 'SVC_LAUNCHED_VERSION';

/** Read the launcher's settings. @throws ConfigError for a timeout outside 1 s - 1 h. */
export function readLaunchSettings(env: Env): LaunchSettings {
  const raw = str(env, 'SVC_UPDATE_READY_TIMEOUT_MS');
  const t = raw === undefined || raw === '' ? 120_000 : Number(raw);
  if (!Number.isInteger(t) || t < 1000 || t > 3_600_000) throw new ConfigError('SVC_UPDATE_READY_TIMEOUT_MS must be an integer from 1000 to 3600000');
  return { launchedVersion: str(env, LAUNCHED_VERSION_ENV) || null, readyTimeoutMs: t };
}
