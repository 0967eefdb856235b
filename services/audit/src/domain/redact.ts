/**
 * Secret scrubbing for audit detail (spec "Audit log row": detail is plain text and must not hold
 * secrets). Values under secret-looking keys are replaced by `"[redacted]"` before signing, at any
 * depth, so a careless caller cannot write a credential into the append-only log.
 */
import type { Json } from '../verifier/format.js';

const EXACT = new Set([
  'password', 'passwd', 'secret', 'client_secret', 'api_key', 'apikey', 'access_token', 'refresh_token', 'id_token',
  'authorization', 'cookie', 'set-cookie', 'private_key', 'signing_key', 'x-svc-principal', 'x-svc-cap-token',
]);

/** True for keys whose values are treated as secrets. */
export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase();
  return EXACT.has(k) || k.endsWith('_password') || k.endsWith('_secret') || k.endsWith('_api_key') || k.endsWith('_private_key');
}

/** A copy of `value` with secret-looking keys' values replaced by "[redacted]". */
export function redactSecrets(value: Json): Json {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value)) out[k] = isSecretKey(k) && v !== null ? '[redacted]' : redactSecrets(v);
    return out;
  }
  return value;
}
