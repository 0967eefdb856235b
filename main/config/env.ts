/**
 * Parsing helpers of the environment (DESIGN.md layout: main/config is the one reader of
 * `process.env`). `main/config/index.ts` and every per-service reader in `main/config/services/`
 * import them from here, so the readers do not import `index.ts` back (no import cycle).
 *
 * Every helper reads from an `Env` handed in (never `process.env` directly) and throws
 * `ConfigError` with a message that names the variable to set.
 */
import { readFileSync } from 'node:fs';

/** The environment, as main/config sees it. */
export type Env = Record<string, string | undefined>;

/** A configuration problem that stops the stack from starting; the message says what to set. */
export class ConfigError extends Error {
  constructor(message: string) { super(message); this.name = 'ConfigError'; }
}

/** Read a trimmed string, undefined when unset. */
export function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined ? undefined : v.trim();
}

/** Read `NAME`, or the file named by `NAME_FILE` (secrets), trimmed. @throws ConfigError when the file cannot be read */
export function secret(env: Env, name: string): string | undefined {
  const file = str(env, `${name}_FILE`);
  if (file) {
    try { return readFileSync(file, 'utf8').trim(); } catch { throw new ConfigError(`${name}_FILE points at ${file}, which cannot be read`); }
  }
  return str(env, name);
}

/** Read a whole number within bounds (default when unset). @throws ConfigError */
export function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** Read a number (fractions allowed) in [min, max] (default when unset). @throws ConfigError naming the variable. */
export function fraction(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw new ConfigError(`${name} must be a number between ${min} and ${max}, got "${raw}"`);
  return n;
}

/** Read a boolean (`true/false/1/0/yes/no/on/off`). @throws ConfigError */
export function bool(env: Env, name: string, def: boolean): boolean {
  const raw = str(env, name)?.toLowerCase();
  if (raw === undefined || raw === '') return def;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/**
 * An http(s) URL variable without its trailing slashes, or null when unset (an instance's address
 * for its peers: SANDBOX_INSTANCE_URL, SVC_GATEWAY_INSTANCE_URL).
 * @param example shown in the error. @throws ConfigError when set to anything but an http(s) URL.
 */
export function httpUrlOrNull(env: Env, name: string, example: string): string | null {
  const raw = str(env, name);
  if (!raw) return null;
  let u: URL | null = null;
  try { u = new URL(raw); } catch { /* refused below */ }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) throw new ConfigError(`${name} must be an http(s) URL such as ${example}, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/** Split a comma-separated list, trimmed, empties dropped. */
export function list(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

const PLACEHOLDERS = /^(change[-_ ]?me|changeme.*|placeholder|secret|password|your[-_ ].*|xxx+|test|default|example.*|<.*>|\$\{.*\}|replace[-_ ]?me.*)$/i;

/** True for values that look like a template placeholder rather than a real secret. */
export function isPlaceholder(value: string): boolean {
  return PLACEHOLDERS.test(value.trim()) || /^(.)\1+$/.test(value) || /change[-_ ]?me|placeholder|replace[-_ ]?me/i.test(value);
}
