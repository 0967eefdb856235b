/**
 * The phone's calls to the workstation (issue 14 items 1, 3, 5; /work/2fa-brief.md "Phone routes"):
 * `POST /dirauth/pair/enroll`, `GET /dirauth/pair/challenges` (once, long-polled with `wait=`, or
 * as server-sent events with `?proof=`, since EventSource cannot set headers), and
 * `POST /dirauth/pair/challenges/{id}/answer` (the signed answer is the credential). Listing carries a
 * fresh device proof per call.
 * Errors are `DeviceApiError` with the server's stable `code` (`network_error` when unreachable).
 */
import type { AnswerResult, ChallengeItem, EnrollResult } from '../api/types';
import { answerJws, deviceProof } from './device-crypto';

/** One pending sign-in as the phone shows it (numbers: three distinct 10-99, one is the browser's). */
export type { ChallengeItem };

/** A refusal of the workstation (`code` from `{error|message, code}`) or `network_error`. */
export class DeviceApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
    this.name = 'DeviceApiError';
  }
}

/** The device identity a call signs with. */
export interface DeviceIdentity { device_id: string; public_url: string; privateKey: CryptoKey }

async function call<T>(url: string, init: RequestInit): Promise<T> {
  let res: Response;
  try { res = await fetch(url, { ...init, cache: 'no-store' }); } catch (err) {
    if ((err as { name?: string }).name === 'AbortError') throw err;
    throw new DeviceApiError(0, 'network_error', 'The workstation cannot be reached.');
  }
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try { body = text ? JSON.parse(text) as Record<string, unknown> : {}; } catch { /* not JSON */ }
  if (!res.ok) {
    const code = typeof body.code === 'string' ? body.code : `http_${res.status}`;
    const msg = typeof body.error === 'string' ? body.error : typeof body.message === 'string' ? body.message : `HTTP ${res.status}`;
    throw new DeviceApiError(res.status, code, msg);
  }
  return body as T;
}

/** Pair: trade the enrollment token and the proof for a device id, tokens and the offline-code secret. */
export function enroll(base: string, enrollment_token: string, proof: string): Promise<EnrollResult> {
  return call<EnrollResult>(`${base}/dirauth/pair/enroll`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ enrollment_token, proof }),
  });
}

const CHALLENGES = '/dirauth/pair/challenges';

/** The pending challenges now, or within `wait` seconds (long poll, 1-25). */
export async function listChallenges(base: string, id: DeviceIdentity, wait?: number, signal?: AbortSignal): Promise<ChallengeItem[]> {
  const proof = await deviceProof(id.privateKey, { ...id, htm: 'GET', htu: CHALLENGES });
  const q = wait ? `?wait=${wait}` : '';
  const r = await call<{ items: ChallengeItem[] }>(`${base}${CHALLENGES}${q}`, { headers: { 'x-device-proof': proof, accept: 'application/json' }, signal });
  return r.items;
}

/** The URL of the challenge stream, authenticated by a fresh proof in the query (the stream ends when the proof expires). */
export async function challengeStreamUrl(base: string, id: DeviceIdentity): Promise<string> {
  const proof = await deviceProof(id.privateKey, { ...id, htm: 'GET', htu: CHALLENGES });
  return `${base}${CHALLENGES}?proof=${encodeURIComponent(proof)}`;
}

/** Answer a challenge; resolves to the status the workstation recorded. */
export async function answerChallenge(base: string, id: DeviceIdentity, challenge_id: string, decision: 'approve' | 'deny' | 'report', number?: number): Promise<'approved' | 'denied'> {
  const path = `${CHALLENGES}/${encodeURIComponent(challenge_id)}/answer`;
  // The signed answer is its own credential (bound to the device key and the challenge).
  const answer = await answerJws(id.privateKey, { device_id: id.device_id, challenge_id, decision, number });
  try {
    const r = await call<AnswerResult>(`${base}${path}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ answer }),
    });
    return r.status;
  } catch (err) {
    // A wrong number is answered 403 for the browser: it is a recorded denial, not a failure.
    if (err instanceof DeviceApiError && err.status === 403 && err.code === 'challenge_denied') return 'denied';
    throw err;
  }
}

/** Plain words for the codes the phone can meet. */
export function deviceMessage(err: unknown): string {
  if (!(err instanceof DeviceApiError)) return 'Something went wrong. Try again.';
  switch (err.code) {
    case 'network_error': return 'The workstation cannot be reached. Check that this phone is on the same network, or use the offline code.';
    case 'enrollment_token_invalid': return 'This pairing code is not valid. Start "Pair a phone" again on your computer.';
    case 'enrollment_expired': return 'This pairing code has expired (it lasts two minutes). Start "Pair a phone" again on your computer.';
    case 'enrollment_used': return 'This pairing code was already used. Start "Pair a phone" again on your computer.';
    case 'device_proof_invalid': return 'The workstation did not accept this phone\'s signature. Pair the phone again.';
    case 'device_revoked': return 'This phone\'s pairing was revoked. Pair it again from your computer.';
    case 'challenge_not_found': return 'This sign-in request no longer exists.';
    case 'challenge_expired': return 'This sign-in request has expired.';
    case 'challenge_answered': return 'This sign-in request was already answered.';
    case 'rate_limited': return 'Too many requests. Wait a moment.';
    default: return err.status >= 500 ? 'The workstation had a problem. Try again shortly.' : err.message;
  }
}
