/**
 * HTTP to the workstation for the command-line device (issue 14 item 7). Plain http when the URL is
 * http (loopback); for https the workstation's self-signed certificate is accepted only when the
 * SHA-256 of its DER equals the pinned fingerprint from the enrollment URL (the QR code carried it, so
 * the pin comes from a channel the user trusts); with no pin the certificate is verified against the
 * system's CAs as usual; `insecure` accepts any certificate (operators' tests only).
 *
 * Built on undici: an `Agent` whose connector lets the TLS handshake finish without CA verification,
 * then compares the peer certificate's fingerprint before any byte of the request is written.
 */
import { createHash } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { Agent, buildConnector, fetch, type Dispatcher } from 'undici';

/** How to trust the workstation's certificate. */
export interface TrustOptions {
  /** Expected SHA-256 of the certificate DER (lowercase hex); '' = none. */
  fingerprint: string;
  /** Accept any certificate. */
  insecure?: boolean;
}

/** A request refused before it reached the server (certificate pin, network). `code` is stable. */
export class TransportError extends Error {
  constructor(readonly code: 'certificate_mismatch' | 'network_error', message: string) {
    super(message);
    this.name = 'TransportError';
  }
}

/** SHA-256 of a certificate's DER, lowercase hex without colons (the protocol's fingerprint form). */
export function certificateFingerprint(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex');
}

/** The undici dispatcher enforcing `trust`, or undefined for the default (CA-verified) one. */
export function dispatcherFor(trust: TrustOptions): Dispatcher | undefined {
  if (!trust.fingerprint && !trust.insecure) return undefined;
  const base = buildConnector({ rejectUnauthorized: false });
  const connect: buildConnector.connector = (opts, callback) => {
    base(opts, (err, socket) => {
      if (err || !socket) { callback(err ?? new Error('no socket'), null); return; }
      const tls = socket as TLSSocket;
      if (trust.fingerprint && typeof tls.getPeerCertificate === 'function') {
        const der = tls.getPeerCertificate().raw;
        const seen = der ? certificateFingerprint(der) : '';
        if (seen !== trust.fingerprint) {
          socket.destroy();
          callback(new TransportError('certificate_mismatch', `the workstation's certificate fingerprint is ${seen || 'missing'}, not the pinned ${trust.fingerprint}`), null);
          return;
        }
      }
      callback(null, socket);
    });
  };
  return new Agent({ connect });
}

/** A JSON answer: status and parsed body (null when empty or not JSON). */
export interface JsonAnswer { status: number; body: Record<string, unknown> | null }

/**
 * Send one JSON request. @throws TransportError `certificate_mismatch` when the pin does not hold,
 * `network_error` when the workstation cannot be reached.
 */
export async function requestJson(dispatcher: Dispatcher | undefined, url: string, init: { method: string; headers?: Record<string, string>; json?: unknown }): Promise<JsonAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  let res: Awaited<ReturnType<typeof fetch>>;
  try {
    res = await fetch(url, { method: init.method, headers, body: init.json === undefined ? undefined : JSON.stringify(init.json), dispatcher });
  } catch (err) {
    let cause: unknown = err;
    while (cause instanceof Error && !(cause instanceof TransportError) && cause.cause) cause = cause.cause;
    if (cause instanceof TransportError) throw cause;
    throw new TransportError('network_error', `cannot reach ${new URL(url).origin}: ${(cause as Error)?.message ?? String(cause)}`);
  }
  const text = await res.text();
  let body: Record<string, unknown> | null = null;
  try { body = text ? JSON.parse(text) as Record<string, unknown> : null; } catch { body = null; }
  return { status: res.status, body };
}
