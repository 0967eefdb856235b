/**
 * The device's signed objects (issue 14 items 1, 3, 5; /work/2fa-brief.md "Crypto objects"), all JWS
 * compact ES256 over P-256, signed with `jose`:
 *
 * - enrollment proof: header `{alg, typ: "svc-device-enroll+jwt", jwk}`, claims `{enrollment_id, nonce, name?, iat, exp}`;
 * - device proof (DPoP-like, RFC 9449): header `{alg, typ: "svc-device+jwt", kid: device_id}`, claims
 *   `{sub, aud: "{public_url}/dirauth/pair", iat, exp, jti, htm, htu}`;
 * - answer: header `{alg, typ: "svc-device-answer+jwt", kid}`, claims `{sub, challenge_id, decision, number?, iat, exp, jti}`.
 *
 * Lifetimes are 60 s (the protocol allows up to 120).
 */
import { randomBytes } from 'node:crypto';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

/** Seconds a proof or answer stays valid. */
export const PROOF_TTL_SECONDS = 60;

/** What a device can decide about a challenge (`report` = "this wasn't me"). */
export type Decision = 'approve' | 'deny' | 'report';

/** A fresh device key pair as JWKs (P-256). `private_jwk` includes `d`; `public_jwk` is `{kty, crv, x, y}`. */
export async function newDeviceKey(): Promise<{ private_jwk: JWK; public_jwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const priv = await exportJWK(privateKey);
  const pub = await exportJWK(publicKey);
  return { private_jwk: priv, public_jwk: { kty: pub.kty, crv: pub.crv, x: pub.x, y: pub.y } };
}

/** The claims of an enrollment token the device needs (read, not verified: the server verifies it). @throws Error when malformed. */
export function enrollmentClaims(token: string): { enrollment_id: string; nonce: string; exp: number } {
  let c: Record<string, unknown>;
  try { c = decodeJwt(token); } catch { throw new Error('the enrollment token is malformed'); }
  if (typeof c.jti !== 'string' || typeof c.nonce !== 'string') throw new Error('the enrollment token has no enrollment id or nonce');
  return { enrollment_id: c.jti, nonce: c.nonce, exp: typeof c.exp === 'number' ? c.exp : 0 };
}

/** A unique proof id (base64url of 16 random bytes, 22 characters). */
export function newJti(): string { return randomBytes(16).toString('base64url'); }

async function sign(claims: Record<string, unknown>, header: Record<string, unknown>, privateJwk: JWK, now: number): Promise<string> {
  const key = await importJWK(privateJwk, 'ES256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', ...header }).setIssuedAt(now).setExpirationTime(now + PROOF_TTL_SECONDS).sign(key);
}

/** The enrollment proof for `POST /dirauth/pair/enroll`. `now` in Unix seconds. */
export function enrollmentProof(a: { enrollment_id: string; nonce: string; name?: string; private_jwk: JWK; public_jwk: JWK; now: number }): Promise<string> {
  const claims: Record<string, unknown> = { enrollment_id: a.enrollment_id, nonce: a.nonce };
  if (a.name) claims.name = a.name;
  return sign(claims, { typ: 'svc-device-enroll+jwt', jwk: a.public_jwk }, a.private_jwk, a.now);
}

/**
 * A device proof for one request: `htm` the HTTP method, `htu` the route path without query (e.g.
 * `/dirauth/pair/challenges`), `audience` = `{public_url}/dirauth/pair`. `now` in Unix seconds.
 */
export function deviceProof(a: { device_id: string; audience: string; htm: string; htu: string; private_jwk: JWK; now: number }): Promise<string> {
  return sign({ sub: a.device_id, aud: a.audience, jti: newJti(), htm: a.htm, htu: a.htu }, { typ: 'svc-device+jwt', kid: a.device_id }, a.private_jwk, a.now);
}

/** A signed answer to a challenge (`number` is required for approve). `now` in Unix seconds. */
export function answerJws(a: { device_id: string; challenge_id: string; decision: Decision; number?: number; private_jwk: JWK; now: number }): Promise<string> {
  const claims: Record<string, unknown> = { sub: a.device_id, challenge_id: a.challenge_id, decision: a.decision, jti: newJti() };
  if (a.number !== undefined) claims.number = a.number;
  return sign(claims, { typ: 'svc-device-answer+jwt', kid: a.device_id }, a.private_jwk, a.now);
}
