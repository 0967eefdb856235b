/**
 * Verification of a signed webhook delivery (issue 18 item 2; docs/webhooks.md): pure, no I/O.
 * `X-Svc-Timestamp` is Unix seconds within 300 s of now; `X-Svc-Signature` is
 * `sha256=<hex HMAC-SHA256(secret, timestamp + "." + rawBody)>`, compared in constant time.
 * The replay check is the caller's (the store's cache on (hook, signature)).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_WINDOW_SECONDS } from '../../contracts/webhooks.js';

/** Why a delivery failed verification (the error code it answers). */
export type VerifyFailure = 'webhook_timestamp_invalid' | 'webhook_signature_invalid';

/** A verification result: the normalised signature (lower-case hex) when it holds. */
export type VerifyResult = { ok: true; signature: string } | { ok: false; code: VerifyFailure };

const SIG = /^sha256=([0-9a-fA-F]{64})$/;
const TS = /^[0-9]{1,12}$/;

/** The hex HMAC a sender puts after `sha256=`. */
export function signWebhook(secret: string | Buffer, timestamp: string, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/**
 * Verify one delivery. The timestamp is checked first (cheap), then the signature.
 * @param nowSeconds Unix seconds (test seam).
 */
export function verifyWebhook(secret: string | Buffer, timestamp: string | undefined, signature: string | undefined, rawBody: Buffer, nowSeconds = Math.floor(Date.now() / 1000)): VerifyResult {
  if (typeof timestamp !== 'string' || !TS.test(timestamp)) return { ok: false, code: 'webhook_timestamp_invalid' };
  if (Math.abs(nowSeconds - Number(timestamp)) > WEBHOOK_WINDOW_SECONDS) return { ok: false, code: 'webhook_timestamp_invalid' };
  const m = typeof signature === 'string' ? SIG.exec(signature.trim()) : null;
  if (!m) return { ok: false, code: 'webhook_signature_invalid' };
  const given = Buffer.from(m[1]!, 'hex');
  const want = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  if (!timingSafeEqual(given, want)) return { ok: false, code: 'webhook_signature_invalid' };
  return { ok: true, signature: m[1]!.toLowerCase() };
}
