/**
 * THE typed HTTP client the auth service uses to call dirauth (issue 15 item 3):
 * `verify(username, password)` -> `POST /v1/internal/directory/verify` as `service:<service>` with
 * the one cached service stamp (services/shared/identity/service-stamp.ts). Imports only
 * services/shared, undici/node and dirauth's `contracts.ts`.
 */
import { request } from 'undici';
import { serviceStamp } from '../../shared/identity/service-stamp.js';
import { DIRECTORY_VERIFY_PATH, type DirectoryIdentity } from './contracts.js';

/** The outcome of one verification. */
export type DirectoryVerdict =
  | { kind: 'ok'; identity: DirectoryIdentity }
  /** Unknown user or wrong password (dirauth 401). */
  | { kind: 'invalid' }
  /** dirauth has no directory configured (404 `directory_not_configured`). */
  | { kind: 'not_configured' }
  /** The directory or dirauth is down, slow, or answered something unexpected. */
  | { kind: 'unavailable'; detail: string };

/** Options of a `DirauthClient`. */
export interface DirauthClientOptions {
  /** dirauth base URL, e.g. `http://127.0.0.1:8010`. */
  baseUrl: string;
  /** Name of the calling service (the principal is `service:<service>`). */
  service: string;
  tenantId: string;
  /** HMAC keys for X-Svc-Principal, newest first. */
  principalKeys: readonly string[];
  /** Whole-call timeout, ms; should exceed dirauth's own LDAP deadline. */
  timeoutMs: number;
  /** A shared, already cached stamp function (default: a new one). */
  stamp?: () => string;
}

/** dirauth, as the auth service calls it. */
export class DirauthClient {
  private readonly stamp: () => string;

  constructor(private readonly o: DirauthClientOptions) {
    this.stamp = o.stamp ?? serviceStamp(o.service, o.tenantId, o.principalKeys);
  }

  /** Verify directory credentials. Never throws. */
  async verify(username: string, password: string): Promise<DirectoryVerdict> {
    try {
      const res = await request(`${this.o.baseUrl}${DIRECTORY_VERIFY_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-principal': this.stamp() },
        body: JSON.stringify({ username, password }),
        headersTimeout: this.o.timeoutMs,
        bodyTimeout: this.o.timeoutMs,
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
      const text = await res.body.text();
      if (res.statusCode === 200) return { kind: 'ok', identity: JSON.parse(text) as DirectoryIdentity };
      if (res.statusCode === 401) return { kind: 'invalid' };
      if (res.statusCode === 404) return { kind: 'not_configured' };
      return { kind: 'unavailable', detail: `dirauth answered ${res.statusCode}` };
    } catch (err) {
      return { kind: 'unavailable', detail: (err as Error).message };
    }
  }
}
