/**
 * The offline code (issue 14 item 4): RFC 6238 TOTP from the secret exchanged at pairing, computed
 * with the `otpauth` package (HMAC-SHA1, 6 digits, 30 s steps by default).
 */
import { Secret, TOTP } from 'otpauth';
import type { TotpParams } from './state.js';

/** The code at `timestampMs` (Unix ms), zero-padded to `digits`. */
export function totpCode(p: TotpParams, timestampMs: number): string {
  return TOTP.generate({ secret: Secret.fromBase32(p.secret), algorithm: p.algorithm, digits: p.digits, period: p.period, timestamp: timestampMs });
}

/** Seconds until the code at `timestampMs` changes (1..period). */
export function secondsLeft(p: Pick<TotpParams, 'period'>, timestampMs: number): number {
  const period = p.period * 1000;
  return Math.ceil((period - (timestampMs % period)) / 1000);
}
