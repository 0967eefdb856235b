/**
 * Audit signing keys (spec "Audit signing keys"; DESIGN.md "Receipt format v1": HMAC keyed by the
 * UTF-8 bytes of the key for the row's key_version).
 *
 * The active key is resolved through a provider at every insert and seal, and the full key map
 * fresh at every verification run, so a host can rotate keys without restarting the service.
 */
import { createHash, createHmac } from 'node:crypto';
import type { AuditKeyMaterial } from '../../../shared/runtime.js';
import type { AuditRuntime, KeyProvider, KeyRing } from '../contracts/runtime.js';
import type { HashProvider } from '../verifier/hash.js';

export type { KeyProvider, KeyRing } from '../contracts/runtime.js';

const PLACEHOLDER = /change[-_ ]?me|placeholder|replace[-_ ]?me|^(secret|password|test|default|example.*|x+|<.*>|\$\{.*\})$/i;

/**
 * Why a key is unacceptable, or null when it is fine: shorter than 32 characters, a template
 * placeholder, or one character repeated.
 */
export function keyProblem(name: string, key: string | null | undefined): string | null {
  if (!key) return `${name} is required; set it to a random value of at least 32 characters`;
  if (key.length < 32) return `${name} must be at least 32 characters (got ${key.length})`;
  if (PLACEHOLDER.test(key.trim()) || /^(.)\1+$/.test(key)) return `${name} is a placeholder; set it to a random value of at least 32 characters`;
  return null;
}

/**
 * Build and validate a key ring from the config slice (active, previous, and the retired keys of
 * `retiredKeys`, which verify only).
 * @throws Error naming the variable when a key is missing, short or a placeholder, or when the
 *   previous key lacks a distinct label.
 */
export function keyRingFromConfig(cfg: AuditKeyMaterial): KeyRing {
  const p = keyProblem('AUDIT_SIGNING_KEY', cfg.signingKey);
  if (p) throw new Error(`audit refuses to start: ${p}`);
  if (!cfg.keyVersion) throw new Error('audit refuses to start: AUDIT_KEY_VERSION is empty');
  const byVersion = new Map<string, string>([[cfg.keyVersion, cfg.signingKey]]);
  if (cfg.previousSigningKey) {
    const pp = keyProblem('AUDIT_SIGNING_KEY_PREVIOUS', cfg.previousSigningKey);
    if (pp) throw new Error(`audit refuses to start: ${pp}`);
    if (!cfg.previousKeyVersion) throw new Error('audit refuses to start: AUDIT_SIGNING_KEY_PREVIOUS is set without AUDIT_KEY_VERSION_PREVIOUS');
    if (cfg.previousKeyVersion === cfg.keyVersion) throw new Error('audit refuses to start: AUDIT_KEY_VERSION_PREVIOUS must differ from AUDIT_KEY_VERSION');
    byVersion.set(cfg.previousKeyVersion, cfg.previousSigningKey);
  }
  // Issue 19 item 3: every key retired through /v1/admin/secrets keeps verifying its rows.
  for (const r of cfg.retiredKeys ?? []) if (r.key && r.version && !byVersion.has(r.version)) byVersion.set(r.version, r.key);
  return { active: { version: cfg.keyVersion, key: cfg.signingKey }, byVersion };
}

/**
 * A key provider over the host's live key material: the ring is rebuilt (and validated) only when
 * the material object changes. A rotated-in bad key keeps the previous ring and is reported once.
 * @throws Error on the first call when the first material is unacceptable.
 */
export function liveKeyProvider(material: () => AuditKeyMaterial): KeyProvider {
  let last: AuditKeyMaterial | null = null;
  let ring: KeyRing | null = null;
  return () => {
    const m = material();
    if (m !== last || !ring) {
      try { ring = keyRingFromConfig(m); } catch (err) { if (!ring) throw err; }
      last = m;
    }
    return ring!;
  };
}

/**
 * The key provider the service runs with: `runtime.auditKeys`, else the live provider over
 * `runtime.auditKeyMaterial`, else the config's keys. The config's keys are validated first and
 * the chosen provider is called once, so a bad key refuses the start before anything opens.
 * @throws Error naming the variable when a key is missing, short or a placeholder.
 */
export function resolveKeyProvider(cfg: AuditKeyMaterial, runtime: AuditRuntime): KeyProvider {
  const configRing = keyRingFromConfig(cfg);
  const keys: KeyProvider = runtime.auditKeys ?? (runtime.auditKeyMaterial ? liveKeyProvider(runtime.auditKeyMaterial) : () => configRing);
  keys();
  return keys;
}

/** `node:crypto` implementation of the verifier's hash provider (much faster than the pure one). */
export const nodeHashProvider: HashProvider = {
  sha256: (data) => createHash('sha256').update(data).digest(),
  hmacSha256: (key, data) => createHmac('sha256', key).update(data).digest(),
};

/** Lowercase-hex SHA-256 of a UTF-8 string via node:crypto. */
export function sha256HexFast(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('hex');
}

/** Lowercase-hex HMAC-SHA256 of a UTF-8 string under a UTF-8 key via node:crypto. */
export function hmacHexFast(key: string, s: string): string {
  return createHmac('sha256', key).update(s, 'utf8').digest('hex');
}
