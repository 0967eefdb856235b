/**
 * THE typed HTTP client other services use to call the audit service (issue 10 "Clients live with
 * the service they call": one audit client instead of three). Spec "Audit and receipts"; the routes
 * and shapes are those of `contracts.ts`.
 *
 * - `append(row, opts?)`: `POST /v1/audit` (audit log row, e.g. `guardrail.input.blocked`,
 *   `inference.provider.created`) as the calling service's principal; best effort, never throws;
 * - `putArtifact(...)`: `POST /v1/audit/artifacts` (captured prompt/model/tool body, or a tool's file
 *   as base64); never throws;
 * - `receipt(turnId)`: `GET /v1/turns/{turn_id}` -> the turn's receipt (pending until sealed) or null;
 * - `replay(turnId, headers)` and `artifact(path, headers)`: the recorded events of a turn and an
 *   artifact body, with the CALLER's forwarded identity headers so audit decides what it may see.
 *
 * Service-to-service calls carry `X-Svc-Principal` of `service:<service>` from the one cached
 * service stamp (`services/shared/identity/service-stamp.ts`). Imports only services/shared,
 * undici/node and audit's `contracts.ts`.
 */
import { createHash } from 'node:crypto';
import { request } from 'undici';
import { serviceStamp } from '../../shared/identity/service-stamp.js';
import type { ArtifactUploadRequest, AuditAppendRequest, ReceiptObject, ReplayEvent } from './contracts.js';

/** Default whole-call timeout of every audit call, ms. */
export const AUDIT_CLIENT_TIMEOUT_MS = 5000;

/** sha256 of a UTF-8 string, lowercase hex (the `sha256` an artifact upload declares). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Options of an `AuditClient`. */
export interface AuditClientOptions {
  /** Audit base URL, e.g. `http://127.0.0.1:7411` (no trailing slash). */
  baseUrl: string;
  /** Name of the CALLING service: the principal is `service:<service>`. */
  service: string;
  /** Tenant the calling service acts in (the stamp's `tenant_id`). */
  tenantId: string;
  /** HMAC keys for X-Svc-Principal, newest first (signs with the first). */
  principalKeys: readonly string[];
  /** Whole-call timeout of each call, ms (default 5000). `append` may override per call. */
  timeoutMs?: number;
  /**
   * An already cached stamp function to share with the service's other clients; default
   * `serviceStamp(service, tenantId, principalKeys)`.
   */
  stamp?: () => string;
}

/** Why one append attempt failed (passed to `AppendOptions.onFailure`). */
export type AppendFailure =
  /** Audit answered a non-2xx status. */
  | { kind: 'refused'; status: number; attempt: number }
  /** Connection failure or timeout. */
  | { kind: 'unreachable'; error: Error; attempt: number };

/** Options of one `append`. */
export interface AppendOptions {
  /**
   * How many attempts (default 1). A further attempt is made only after an unreachable audit or a
   * 5xx answer; a 4xx answer is final.
   */
  attempts?: number;
  /** Header and body timeout of each attempt, ms (default: the client's `timeoutMs`). */
  timeoutMs?: number;
  /** Called after each failed attempt (for the caller's logs); must not throw. */
  onFailure?: (failure: AppendFailure) => void;
}

/** The audit service, as another service calls it. */
export class AuditClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly stamp: () => string;

  constructor(opts: AuditClientOptions) {
    this.baseUrl = opts.baseUrl;
    this.timeoutMs = opts.timeoutMs ?? AUDIT_CLIENT_TIMEOUT_MS;
    this.stamp = opts.stamp ?? serviceStamp(opts.service, opts.tenantId, opts.principalKeys);
  }

  /** `X-Svc-Principal` of the calling service. */
  serviceHeaders(): Record<string, string> {
    return { 'x-svc-principal': this.stamp() };
  }

  /**
   * Append one audit log row (`POST /v1/audit`, spec "Audit actions"). The body is sent as given
   * (`tenant_id` is ignored by audit: rows go to the pinned tenant). Details must hold no content
   * or secret values.
   * @returns true once audit accepted the row (2xx, i.e. 201); false when it refused or stayed
   *   unreachable after `opts.attempts` attempts. Never throws.
   */
  async append(row: AuditAppendRequest, opts: AppendOptions = {}): Promise<boolean> {
    const attempts = opts.attempts ?? 1;
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const body = JSON.stringify(row);
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const res = await request(`${this.baseUrl}/v1/audit`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...this.serviceHeaders() },
          body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        await res.body.dump();
        if (res.statusCode >= 200 && res.statusCode < 300) return true;
        opts.onFailure?.({ kind: 'refused', status: res.statusCode, attempt });
        if (res.statusCode < 500) return false;
      } catch (err) {
        opts.onFailure?.({ kind: 'unreachable', error: err as Error, attempt });
      }
    }
    return false;
  }

  /**
   * Store one captured body (`POST /v1/audit/artifacts`) with its sha256. With `encoding` `base64`,
   * `content` is the base64 of the bytes (a sandbox figure) and goes as `content_base64`, with the
   * sha256 of the decoded bytes.
   * @returns whether audit accepted it (201 new / 200 same bytes again); failures are reported,
   *   never thrown, so capture never breaks a turn.
   */
  async putArtifact(turnId: string, eventId: string, kind: string, content: string, contentType = 'application/json', encoding: 'utf8' | 'base64' = 'utf8'): Promise<boolean> {
    const body: ArtifactUploadRequest = encoding === 'base64'
      ? { turn_id: turnId, event_id: eventId, kind, content_type: contentType, content_base64: content, sha256: createHash('sha256').update(Buffer.from(content, 'base64')).digest('hex') }
      : { turn_id: turnId, event_id: eventId, kind, content_type: contentType, content, sha256: sha256Hex(content) };
    try {
      const r = await this.callJson(`${this.baseUrl}/v1/audit/artifacts`, this.serviceHeaders(), body);
      return r.status === 200 || r.status === 201;
    } catch {
      return false;
    }
  }

  /**
   * The receipt audit holds for a turn (`GET /v1/turns/{turn_id}` `.receipt`; pending until sealed).
   * @returns null when audit does not know the turn yet, answers an error or is unreachable.
   */
  async receipt(turnId: string): Promise<ReceiptObject | null> {
    try {
      const r = await this.callJson(`${this.baseUrl}/v1/turns/${encodeURIComponent(turnId)}`, this.serviceHeaders());
      const rec = (r.body as { receipt?: ReceiptObject } | null)?.receipt;
      return r.status === 200 && rec ? rec : null;
    } catch {
      return null;
    }
  }

  /**
   * Recorded events of a turn with artifact metadata (`GET /v1/audit/turns/{turn_id}/replay`
   * `.events`), as the caller whose identity `headers` carry may see them.
   * @returns null when audit answers 404 (unknown or not the caller's turn).
   * @throws Error when audit is unreachable or answers another error.
   */
  async replay(turnId: string, headers: Record<string, string>): Promise<ReplayEvent[] | null> {
    const r = await this.callJson(`${this.baseUrl}/v1/audit/turns/${encodeURIComponent(turnId)}/replay`, headers);
    if (r.status === 404) return null;
    if (r.status !== 200) throw new Error(`audit replay answered HTTP ${r.status}`);
    return ((r.body as { events?: ReplayEvent[] }).events ?? []);
  }

  /**
   * Body of an artifact by its audit URL path (an `ArtifactInfo.url`), with the caller's headers.
   * @throws Error when it cannot be fetched (unreachable, timeout or non-200).
   */
  async artifact(path: string, headers: Record<string, string>): Promise<string> {
    const res = await request(`${this.baseUrl}${path}`, {
      method: 'GET', headers, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs, signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`audit artifact answered HTTP ${res.statusCode}`);
    return text;
  }

  /**
   * JSON call: `accept: application/json`, a JSON body makes it a POST, whole-call timeout.
   * @throws Error on connection failure or timeout.
   */
  private async callJson(url: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: unknown }> {
    const h: Record<string, string> = { accept: 'application/json', ...headers };
    let text: string | undefined;
    if (body !== undefined) { h['content-type'] = 'application/json'; text = JSON.stringify(body); }
    const res = await request(url, {
      method: text === undefined ? 'GET' : 'POST', headers: h, body: text, signal: AbortSignal.timeout(this.timeoutMs),
      headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs,
    });
    const raw = await res.body.text();
    let parsed: unknown = null;
    if (raw) { try { parsed = JSON.parse(raw); } catch { parsed = null; } }
    return { status: res.statusCode, body: parsed };
  }
}
