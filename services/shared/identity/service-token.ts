/**
 * The service token a service sends on every internal hop (spec "Service-to-service"; issue 15
 * item 4): `POST tokenUrl` with `grant_type=client_credentials` and HTTP Basic client
 * authentication (RFC 6749 §2.3.1, §4.4) at the embedded IdP, answering
 * `{access_token, token_type: "Bearer", expires_in}`.
 *
 * `ServiceTokenSource` caches the token until `REFRESH_MARGIN_SECONDS` before it expires (the hop
 * stays a Map-free field read), fetches at most once at a time (single flight: concurrent callers
 * share one request), and while the IdP is not up yet (the auth service starts beside the others)
 * retries with doubling backoff up to a deadline. A refused client (400/401: wrong secret, unknown
 * client) fails at once. Errors never carry the secret or a token.
 */

/** Refresh the cached token when fewer than this many seconds of validity remain. */
export const REFRESH_MARGIN_SECONDS = 60;

/** A token request that failed; `retryable` is false when the IdP refused the client itself. */
export class ServiceTokenError extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message);
    this.name = 'ServiceTokenError';
  }
}

/** Options of `ServiceTokenSource`. */
export interface ServiceTokenSourceOptions {
  /** Token endpoint (InternalAuthConfig.tokenUrl). */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Extra form fields (e.g. `scope`); none by default. */
  extraForm?: Record<string, string>;
  /** Current time, ms (test seam). */
  clock?: () => number;
  /** The fetch to use (test seam; default the global one). */
  fetch?: typeof fetch;
  /** First retry delay, ms (default 100; doubles up to `maxDelayMs`). */
  firstDelayMs?: number;
  /** Largest retry delay, ms (default 2000). */
  maxDelayMs?: number;
  /** Give up retrying after this long, ms (default 30 000: the stack's start time). */
  deadlineMs?: number;
  /** Per-request timeout, ms (default 5000). */
  requestTimeoutMs?: number;
}

/** Gets and caches this service's service token. */
export class ServiceTokenSource {
  private token: string | null = null;
  /** When the cached token must be replaced, ms (expiry minus the margin). */
  private refreshAt = 0;
  private inflight: Promise<string> | null = null;
  private readonly clock: () => number;
  private readonly basic: string;
  /** Token requests made (observability and tests). */
  fetches = 0;

  constructor(private readonly o: ServiceTokenSourceOptions) {
    this.clock = o.clock ?? Date.now;
    // RFC 6749 §2.3.1: form-urlencode id and secret before base64.
    this.basic = Buffer.from(`${formEncode(o.clientId)}:${formEncode(o.clientSecret)}`, 'utf8').toString('base64');
  }

  /** The client id this source authenticates as. */
  get clientId(): string { return this.o.clientId; }

  /** The cached token when it is still fresh, else null (synchronous hot path). */
  peek(): string | null {
    return this.token !== null && this.clock() < this.refreshAt ? this.token : null;
  }

  /**
   * A fresh token: the cached one, or one fetched (single flight).
   * @throws ServiceTokenError when the IdP refuses the client, or is unreachable past the deadline.
   */
  get(): Promise<string> {
    const cached = this.peek();
    if (cached !== null) return Promise.resolve(cached);
    this.inflight ??= this.fetchWithRetry().finally(() => { this.inflight = null; });
    return this.inflight;
  }

  /** Forget the cached token (a receiver refused it: e.g. the IdP's keys were rotated). */
  invalidate(): void {
    this.token = null;
    this.refreshAt = 0;
  }

  private async fetchWithRetry(): Promise<string> {
    const deadline = this.clock() + (this.o.deadlineMs ?? 30_000);
    let delay = this.o.firstDelayMs ?? 100;
    for (;;) {
      try {
        return await this.fetchOnce();
      } catch (err) {
        const e = err instanceof ServiceTokenError ? err : new ServiceTokenError(`token endpoint unreachable: ${(err as Error).message}`, true);
        if (!e.retryable || this.clock() + delay > deadline) throw e;
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, this.o.maxDelayMs ?? 2000);
      }
    }
  }

  private async fetchOnce(): Promise<string> {
    this.fetches++;
    const body = new URLSearchParams({ grant_type: 'client_credentials', ...this.o.extraForm });
    const res = await (this.o.fetch ?? fetch)(this.o.tokenUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${this.basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body.toString(),
      signal: AbortSignal.timeout(this.o.requestTimeoutMs ?? 5000),
    });
    const text = await res.text();
    if (res.status !== 200) {
      let code = '';
      try { code = String((JSON.parse(text) as { error?: unknown }).error ?? ''); } catch { /* not JSON */ }
      // 400/401/403: the client is refused (retrying does not help); 404 and 5xx: the IdP is not up yet.
      const retryable = res.status === 404 || res.status === 429 || res.status >= 500;
      throw new ServiceTokenError(`token endpoint answered ${res.status}${code ? ` (${code})` : ''} for ${this.o.clientId}`, retryable);
    }
    let parsed: { access_token?: unknown; token_type?: unknown; expires_in?: unknown };
    try { parsed = JSON.parse(text) as typeof parsed; } catch { throw new ServiceTokenError('token endpoint answered a body that is not JSON', true); }
    if (typeof parsed.access_token !== 'string' || !parsed.access_token || String(parsed.token_type).toLowerCase() !== 'bearer') {
      throw new ServiceTokenError('token endpoint answered no bearer access_token', false);
    }
    const ttl = typeof parsed.expires_in === 'number' && parsed.expires_in > 0 ? parsed.expires_in : 300;
    // A short-lived token is refreshed at half its life rather than never cached.
    const margin = Math.min(REFRESH_MARGIN_SECONDS, ttl / 2);
    this.token = parsed.access_token;
    this.refreshAt = this.clock() + (ttl - margin) * 1000;
    return this.token;
  }
}

function formEncode(s: string): string {
  return encodeURIComponent(s).replace(/%20/g, '+');
}
