/**
 * A paired phone for tests, written against the documented protocol with `jose` only
 * (/work/2fa-brief.md "Crypto objects", "Phone routes"; docs/mobile-2fa.md): it reads an enrollment
 * URL, proves a fresh P-256 key, and then signs device proofs (`X-Device-Proof`) and answers, all
 * through the gateway's public `/dirauth/pair/*` routes (no bearer).
 */
import { randomBytes } from 'node:crypto';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, type JWK } from 'jose';

/** The phone's private key, as jose generates it. */
type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/** One challenge as the phone lists it. */
export interface PhoneChallenge {
  challenge_id: string;
  numbers: number[];
  user: { email: string; name: string };
  client_ip: string;
  user_agent: string;
  created_at: string;
  expires_at: string;
}

/** What `fetch`-like calls answer. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
export interface Answer { status: number; body: any; headers: Headers }

/** A paired test phone. */
export interface PhoneDevice {
  deviceId: string;
  /** `{public_url}` the phone was given (`api_base`). */
  apiBase: string;
  /** The enroll answer (tokens, TOTP secret). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the enroll answer as JSON
  enrolled: any;
  /** A device proof for `htm htu` (fresh jti). */
  proof(htm: string, htu: string): Promise<string>;
  /** `GET /dirauth/pair/challenges` through `base`. */
  pending(): Promise<PhoneChallenge[]>;
  /** `POST /dirauth/pair/challenges/{id}/answer` through `base`. */
  answer(challengeId: string, decision: 'approve' | 'deny' | 'report', number?: number): Promise<Answer>;
}

async function call(url: string, init: RequestInit): Promise<Answer> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/**
 * Pair a phone with `enrollmentUrl` (`{public_url}/m/#pair?token=...&fp=...`), talking to the
 * gateway at `base` (the test's address of the public URL).
 * @throws AssertionError-like Error when enrollment does not answer 201.
 */
export async function pairPhone(base: string, enrollmentUrl: string, name = 'Test phone'): Promise<PhoneDevice> {
  const url = new URL(enrollmentUrl);
  const params = new URLSearchParams(url.hash.slice('#pair?'.length));
  const token = params.get('token')!;
  const claims = decodeJwt(token) as { jti: string; nonce: string };
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const pub = await exportJWK(publicKey);
  const jwk: JWK = { kty: pub.kty, crv: pub.crv, x: pub.x, y: pub.y };
  const proof = await new SignJWT({ enrollment_id: claims.jti, nonce: claims.nonce, name })
    .setProtectedHeader({ alg: 'ES256', typ: 'svc-device-enroll+jwt', jwk })
    .setIssuedAt().setExpirationTime('60s').sign(privateKey);
  const r = await call(`${base}/dirauth/pair/enroll`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ enrollment_token: token, proof }),
  });
  if (r.status !== 201) throw new Error(`enroll answered ${r.status} ${JSON.stringify(r.body)}`);
  return phone(base, r.body, privateKey);
}

function phone(base: string, enrolled: { device_id: string; api_base: string }, key: PrivateKey): PhoneDevice {
  const deviceId = enrolled.device_id;
  const aud = `${enrolled.api_base}/dirauth/pair`;
  const jti = (): string => randomBytes(16).toString('base64url');
  const proof = (htm: string, htu: string): Promise<string> => new SignJWT({ htm, htu, jti: jti() })
    .setProtectedHeader({ alg: 'ES256', typ: 'svc-device+jwt', kid: deviceId })
    .setSubject(deviceId).setAudience(aud).setIssuedAt().setExpirationTime('60s').sign(key);
  return {
    deviceId, apiBase: enrolled.api_base, enrolled, proof,
    async pending() {
      const r = await call(`${base}/dirauth/pair/challenges`, { headers: { 'x-device-proof': await proof('GET', '/dirauth/pair/challenges') } });
      if (r.status !== 200) throw new Error(`challenges answered ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.items as PhoneChallenge[];
    },
    async answer(challengeId, decision, number) {
      const answer = await new SignJWT({ challenge_id: challengeId, decision, jti: jti(), ...(number === undefined ? {} : { number }) })
        .setProtectedHeader({ alg: 'ES256', typ: 'svc-device-answer+jwt', kid: deviceId })
        .setSubject(deviceId).setIssuedAt().setExpirationTime('60s').sign(key);
      return call(`${base}/dirauth/pair/challenges/${challengeId}/answer`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ answer }),
      });
    },
  };
}
