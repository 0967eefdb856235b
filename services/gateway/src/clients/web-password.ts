/**
 * The gateway as the embedded IdP's confidential client `svc-web-password` (issue 15 item 1; spec
 * "Bearer tokens and trusted issuers" 1): the `password` and `refresh_token` grants at the realm's
 * token endpoint on auth's internal URL, server-side, so the browser never holds the client secret.
 *
 * Client authentication is HTTP Basic (RFC 6749 §2.3.1, form-encoded id and secret). The request
 * carries the gateway's signed `X-Svc-Client` hop stamp naming the client address, which the IdP's
 * throttle believes (issue 11 item 2); the realm's paths need no service token (issue 15 item 4).
 * Answers are parsed JSON; the secret, passwords and tokens never reach a log line.
 */
import { request, type Dispatcher } from 'undici';
import type { WebPasswordClientConfig } from '../../../shared/config.js';
import { CLIENT_HOP_HEADER, ClientHopSigner } from '../../../shared/identity/client-hop.js';

/** Deadline of one token request, ms (a directory-free password check plus hashing). */
const TOKEN_TIMEOUT_MS = 15_000;
/** Largest token-endpoint answer read, bytes. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** The token endpoint's answer: status, `Retry-After` (seconds, as sent) and the JSON body. */
export interface TokenEndpointAnswer {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
}

/** Calls the realm's token endpoint as `svc-web-password`. */
export class WebPasswordClient {
  private readonly basic: string;
  private readonly hop: ClientHopSigner;

  /**
   * @param cfg the client and the token URL.
   * @param principalKeys SVC_PRINCIPAL_KEYS (the hop stamp's keys).
   * @param dispatcher auth's pool when the token URL is on auth's internal origin, else undefined (global).
   */
  constructor(private readonly cfg: WebPasswordClientConfig, principalKeys: readonly string[], private readonly dispatcher?: Dispatcher) {
    const enc = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
    this.basic = `Basic ${Buffer.from(`${enc(cfg.clientId)}:${enc(cfg.clientSecret)}`).toString('base64')}`;
    this.hop = new ClientHopSigner(principalKeys);
  }

  /** `grant_type=password` for client address `clientIp`. @returns the answer, or null when auth cannot be reached. */
  password(username: string, password: string, clientIp: string): Promise<TokenEndpointAnswer | null> {
    return this.token({ grant_type: 'password', username, password }, clientIp);
  }

  /** `grant_type=refresh_token` (rotates the token). @returns the answer, or null when auth cannot be reached. */
  refresh(refreshToken: string, clientIp: string): Promise<TokenEndpointAnswer | null> {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken }, clientIp);
  }

  private async token(form: Record<string, string>, clientIp: string): Promise<TokenEndpointAnswer | null> {
    const headers: Record<string, string> = {
      authorization: this.basic, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json',
    };
    const stamp = this.hop.stamp(clientIp);
    if (stamp !== null) headers[CLIENT_HOP_HEADER] = stamp;
    try {
      const res = await request(this.cfg.tokenUrl, {
        method: 'POST', headers, body: new URLSearchParams(form).toString(), dispatcher: this.dispatcher,
        headersTimeout: TOKEN_TIMEOUT_MS, bodyTimeout: TOKEN_TIMEOUT_MS,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_ANSWER_BYTES) { res.body.destroy(); return null; }
        chunks.push(chunk as Buffer);
      }
      let body: unknown;
      try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { body = {}; }
      const retry = res.headers['retry-after'];
      return {
        status: res.statusCode,
        retryAfter: typeof retry === 'string' ? retry : null,
        body: typeof body === 'object' && body !== null && !Array.isArray(body) ? body as Record<string, unknown> : {},
      };
    } catch {
      return null;
    }
  }
}
