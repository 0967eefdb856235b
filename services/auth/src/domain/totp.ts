/**
 * The offline code (issue 14 item 4): RFC 6238 TOTP, HMAC-SHA1, 6 digits, 30 s steps, through the
 * `otpauth` package. A code is accepted within ±1 step of now (RFC 6238 §5.2 resynchronisation
 * window) and each step at most once per device (§5.2: "the verifier MUST NOT accept the second
 * attempt of the same OTP"): the caller records the returned step and refuses steps at or before it.
 */
import { Secret, TOTP } from 'otpauth';
import { TOTP_PARAMS } from '../contracts.js';

/** Bytes of a new secret (160 bits, the RFC 4226 §4 recommendation for SHA-1). */
export const TOTP_SECRET_BYTES = 20;

/** Steps either side of now that are accepted. */
export const TOTP_WINDOW = 1;

/** A new random secret, base32 (RFC 4648, no padding). */
export function newTotpSecret(): string {
  return new Secret({ size: TOTP_SECRET_BYTES }).base32;
}

/** The RFC 6238 time step of `timestampMs` (T = floor(unix seconds / period)). */
export function totpStep(timestampMs: number, period: number = TOTP_PARAMS.period): number {
  return Math.floor(timestampMs / 1000 / period);
}

/**
 * The code of `secret` at `timestampMs`.
 * @param secret base32 secret, or `{ascii}` for the RFC's test secrets.
 * @param opts `digits` (default 6), `algorithm` (SHA1, SHA256, SHA512; default SHA1).
 */
export function totpAt(secret: string | { ascii: string }, timestampMs: number, opts: { digits?: number; algorithm?: string } = {}): string {
  return TOTP.generate({
    secret: typeof secret === 'string' ? Secret.fromBase32(secret) : Secret.fromLatin1(secret.ascii),
    algorithm: opts.algorithm ?? TOTP_PARAMS.algorithm,
    digits: opts.digits ?? TOTP_PARAMS.digits,
    period: TOTP_PARAMS.period,
    timestamp: timestampMs,
  });
}

/**
 * The time step whose code `code` is, within ±`TOTP_WINDOW` of `timestampMs`, or null. Refuses
 * anything but exactly six digits. Does NOT check reuse: the caller refuses a step it already accepted.
 */
export function matchTotp(secret: string, code: string, timestampMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = TOTP.validate({
    token: code,
    secret: Secret.fromBase32(secret),
    algorithm: TOTP_PARAMS.algorithm,
    digits: TOTP_PARAMS.digits,
    period: TOTP_PARAMS.period,
    timestamp: timestampMs,
    window: TOTP_WINDOW,
  });
  return delta === null ? null : totpStep(timestampMs) + delta;
}
