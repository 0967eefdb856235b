/**
 * The offline code on the phone (issue 14 item 4): RFC 6238 TOTP (RFC 4226 dynamic truncation) over
 * an injected HMAC, so the secret can live in a non-extractable WebCrypto key (`HMAC`/`SHA-1`) and
 * never again in JavaScript memory after pairing. Plain TypeScript, unit-tested in Node against the
 * RFC 6238 appendix B vectors.
 */

/** HMAC of an 8-byte counter under the device's TOTP key. */
export type Hmac = (message: Uint8Array<ArrayBuffer>) => Promise<ArrayBuffer | Uint8Array>;

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Decode RFC 4648 base32 (upper or lower case, `=` padding and spaces ignored). @throws Error on another character. */
export function base32Decode(text: string): Uint8Array<ArrayBuffer> {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const i = B32.indexOf(ch);
    if (i < 0) throw new Error('not base32');
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

/** The time step at `timestampMs` (Unix ms) for `period` seconds (T0 = 0). */
export function timeStep(timestampMs: number, period: number): number {
  return Math.floor(timestampMs / 1000 / period);
}

/** Seconds until the code at `timestampMs` changes (1..period). */
export function secondsLeft(timestampMs: number, period: number): number {
  const ms = period * 1000;
  return Math.ceil((ms - (timestampMs % ms)) / 1000);
}

/** RFC 4226 HOTP value for `counter`, zero-padded to `digits`. */
export async function hotp(hmac: Hmac, counter: number, digits: number): Promise<string> {
  const msg = new Uint8Array(8);
  // The counter exceeds 32 bits for far-future times (RFC 6238 vector 20000000000): split it.
  const high = Math.floor(counter / 2 ** 32);
  const low = counter >>> 0;
  new DataView(msg.buffer).setUint32(0, high);
  new DataView(msg.buffer).setUint32(4, low);
  const mac = new Uint8Array(await hmac(msg));
  const offset = mac[mac.length - 1]! & 0x0f;
  const bin = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(bin % 10 ** digits).padStart(digits, '0');
}

/** RFC 6238 TOTP at `timestampMs`. */
export function totp(hmac: Hmac, timestampMs: number, period: number, digits: number): Promise<string> {
  return hotp(hmac, timeStep(timestampMs, period), digits);
}
