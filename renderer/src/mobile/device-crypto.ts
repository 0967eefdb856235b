/**
 * The phone's keys and signed objects (issue 14 items 1, 3, 4; /work/2fa-brief.md "Crypto objects"),
 * with WebCrypto and `jose`: a P-256 key pair generated with `extractable: false`, the enrollment
 * proof (`svc-device-enroll+jwt`, carrying the public JWK), device proofs (`svc-device+jwt`, one per
 * request, modelled on DPoP), answers (`svc-device-answer+jwt`), and the offline-code HMAC key.
 */
import { SignJWT, exportJWK } from 'jose';
import { base32Decode, totp, type Hmac } from './totp';

/** Seconds a proof or answer stays valid (the protocol allows up to 120). */
export const PROOF_TTL_SECONDS = 60;

/** A new device key pair: the private half can sign but can never be exported. */
export async function newDeviceKeys(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
}

/** The public JWK `{kty, crv, x, y}` of the device key. */
export async function publicJwk(publicKey: CryptoKey): Promise<{ kty: string; crv: string; x: string; y: string }> {
  const j = await exportJWK(publicKey);
  return { kty: j.kty!, crv: j.crv!, x: j.x!, y: j.y! };
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** A unique proof id: base64url of 16 random bytes. */
export function newJti(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...b)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function sign(claims: Record<string, unknown>, header: Record<string, unknown>, key: CryptoKey): Promise<string> {
  const now = nowSeconds();
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', ...header }).setIssuedAt(now).setExpirationTime(now + PROOF_TTL_SECONDS).sign(key);
}

/** The enrollment proof: echoes the token's enrollment id and nonce, names the device, carries the public key. */
export async function enrollmentProof(keys: CryptoKeyPair, a: { enrollment_id: string; nonce: string; name: string }): Promise<string> {
  return sign({ enrollment_id: a.enrollment_id, nonce: a.nonce, name: a.name }, { typ: 'svc-device-enroll+jwt', jwk: await publicJwk(keys.publicKey) }, keys.privateKey);
}

/** A device proof for one request to `htu` (route path without query) with method `htm`. */
export function deviceProof(key: CryptoKey, a: { device_id: string; public_url: string; htm: string; htu: string }): Promise<string> {
  return sign({ sub: a.device_id, aud: `${a.public_url}/dirauth/pair`, jti: newJti(), htm: a.htm, htu: a.htu }, { typ: 'svc-device+jwt', kid: a.device_id }, key);
}

/** A signed answer to a challenge: approve with the picked number, deny, or report ("this wasn't me"). */
export function answerJws(key: CryptoKey, a: { device_id: string; challenge_id: string; decision: 'approve' | 'deny' | 'report'; number?: number }): Promise<string> {
  const claims: Record<string, unknown> = { sub: a.device_id, challenge_id: a.challenge_id, decision: a.decision, jti: newJti() };
  if (a.number !== undefined) claims.number = a.number;
  return sign(claims, { typ: 'svc-device-answer+jwt', kid: a.device_id }, key);
}

/** WebCrypto's name of a TOTP algorithm (`SHA1` -> `SHA-1`). */
function hashName(algorithm: string): string {
  const m = /^SHA-?(1|256|384|512)$/i.exec(algorithm);
  return m ? `SHA-${m[1]}` : 'SHA-1';
}

/** Import the base32 TOTP secret as a non-extractable HMAC key (the base32 text is dropped by the caller). */
export function importTotpKey(secretBase32: string, algorithm: string): Promise<CryptoKey> {
  const raw = base32Decode(secretBase32);
  return crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: hashName(algorithm) }, false, ['sign']);
}

/** The offline code now (or at `timestampMs`). */
export function offlineCode(key: CryptoKey, p: { digits: number; period: number }, timestampMs = Date.now()): Promise<string> {
  const hmac: Hmac = (m) => crypto.subtle.sign('HMAC', key, m);
  return totp(hmac, timestampMs, p.period, p.digits);
}
