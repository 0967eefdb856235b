/**
 * Client of the audit service's direct routes (spec "Audit and receipts"; services/audit/src/contracts.ts):
 * - `POST /v1/audit/artifacts {turn_id, event_id, kind, content_type?, content, sha256?}` (service principal)
 *   stores a captured prompt, model or tool body;
 * - `GET /v1/turns/{turn_id}` gives the pending receipt (its id) of a turn;
 * - `GET /v1/audit/turns/{turn_id}/replay` and the artifact bodies feed the live replay (with the
 *   caller's principal, so audit decides what the caller may see).
 */
import { createHash } from 'node:crypto';
import { signStamp, servicePrincipal } from '../../../shared/identity/principal.js';
import type { ReceiptRef } from '../contracts.js';
import { callJson, callText } from './http.js';

/** sha256 of a UTF-8 string, lowercase hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** One replay event as audit answers it (the fields the runtime reads). */
export interface RecordedEvent {
  event_id: string;
  payload_type: string;
  emitter_service: string;
  payload: unknown;
  artifacts: Array<{ kind: string; url: string; sha256: string }>;
}

/** Audit client bound to a base URL and the runtime's service identity. */
export class AuditClient {
  constructor(private readonly baseUrl: string, private readonly tenantId: string, private readonly principalKeys: readonly string[], private readonly timeoutMs = 5000) {}

  private serviceHeaders(): Record<string, string> {
    return { 'x-svc-principal': signStamp(servicePrincipal('agent-runtime', this.tenantId), this.principalKeys) };
  }

  /**
   * Store one captured body. @returns whether audit accepted it (201/200); failures are reported,
   * never thrown, so capture never breaks a turn.
   */
  async putArtifact(turnId: string, eventId: string, kind: string, content: string, contentType = 'application/json'): Promise<boolean> {
    try {
      const r = await callJson(`${this.baseUrl}/v1/audit/artifacts`, {
        body: { turn_id: turnId, event_id: eventId, kind, content_type: contentType, content, sha256: sha256Hex(content) },
        headers: this.serviceHeaders(), timeoutMs: this.timeoutMs,
      });
      return r.status === 200 || r.status === 201;
    } catch {
      return false;
    }
  }

  /** The receipt audit holds for a turn (pending until sealed), or null when audit does not know it yet. */
  async receipt(turnId: string): Promise<ReceiptRef | null> {
    try {
      const r = await callJson(`${this.baseUrl}/v1/turns/${encodeURIComponent(turnId)}`, { headers: this.serviceHeaders(), timeoutMs: this.timeoutMs });
      const rec = (r.body as { receipt?: ReceiptRef } | null)?.receipt;
      return r.status === 200 && rec ? rec : null;
    } catch {
      return null;
    }
  }

  /**
   * Recorded events of a turn with artifact metadata, as the caller may see them.
   * @returns null when audit answers 404 (unknown or not the caller's turn).
   * @throws Error when audit is unreachable or answers another error.
   */
  async replay(turnId: string, headers: Record<string, string>): Promise<RecordedEvent[] | null> {
    const r = await callJson(`${this.baseUrl}/v1/audit/turns/${encodeURIComponent(turnId)}/replay`, { headers, timeoutMs: this.timeoutMs });
    if (r.status === 404) return null;
    if (r.status !== 200) throw new Error(`audit replay answered HTTP ${r.status}`);
    return ((r.body as { events?: RecordedEvent[] }).events ?? []);
  }

  /** Body of an artifact by its audit URL path. @throws Error when it cannot be fetched. */
  async artifact(path: string, headers: Record<string, string>): Promise<string> {
    const r = await callText(`${this.baseUrl}${path}`, headers, this.timeoutMs);
    if (r.status !== 200) throw new Error(`audit artifact answered HTTP ${r.status}`);
    return r.text;
  }
}
