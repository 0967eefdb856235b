/**
 * Captured bodies and replay (spec "Audit and receipts": `POST /v1/audit/artifacts`,
 * `GET /v1/audit/turns/{turn_id}/replay`, `GET /v1/audit/turns/{turn_id}/artifacts/{event_id}/{kind}`).
 *
 * Bodies (prompt, tool and model payloads) go to the content-addressed object store; the turn
 * event that mentions them carries their sha256, so a sealed receipt commits to each body through
 * its event's leaf. Metadata is keyed (tenant, turn, event, kind). Replay and bodies follow the
 * turn service's visibility.
 */
import { DomainError, invalidInput } from '../../../shared/kit/domain-error.js';
import { type ArtifactInfo, type ArtifactUploadRequest, type ReplayEvent, type ReplayResponse } from '../contracts/artifacts.js';
import type { Viewer } from './access.js';
import { orderedEvents } from './events.js';
import type { AsyncPort } from './async-ports.js';
import type { ArtifactRecord, ArtifactStore, BlobStore, TurnEventStore, TurnStore } from './ports.js';
import { receiptOf } from './receipt-views.js';
import type { TurnVisibility } from './receipts.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function info(a: ArtifactRecord): ArtifactInfo {
  return {
    turn_id: a.turn_id, event_id: a.event_id, kind: a.kind, sha256: a.sha256, size: a.size, content_type: a.content_type, created_at: a.created_at,
    url: `/v1/audit/turns/${encodeURIComponent(a.turn_id)}/artifacts/${encodeURIComponent(a.event_id)}/${encodeURIComponent(a.kind)}`,
  };
}

/**
 * The bytes and content type of an upload: exactly one of `content` (UTF-8 text, default
 * `text/plain; charset=utf-8`) or `content_base64` (default `application/octet-stream`).
 * @throws DomainError 400 `invalid_request` when both or neither are given, or the base64 is malformed.
 */
export function decodeUpload(b: ArtifactUploadRequest): { bytes: Uint8Array; contentType: string } {
  if ((b.content === undefined) === (b.content_base64 === undefined)) throw invalidInput('give exactly one of content or content_base64', 'body.content');
  let bytes: Uint8Array;
  if (b.content !== undefined) bytes = Buffer.from(b.content, 'utf8');
  else {
    if (!BASE64.test(b.content_base64!) || b.content_base64!.length % 4 !== 0) throw invalidInput('content_base64 is not base64', 'body.content_base64');
    bytes = Buffer.from(b.content_base64!, 'base64');
  }
  return { bytes, contentType: b.content_type ?? (b.content !== undefined ? 'text/plain; charset=utf-8' : 'application/octet-stream') };
}

/** The tables artifacts read and write. */
export interface ArtifactPorts {
  artifacts: AsyncPort<ArtifactStore>;
  turns: AsyncPort<TurnStore>;
  events: AsyncPort<TurnEventStore>;
}

/** Artifact storage and replay. */
export class ArtifactService {
  private readonly artifacts: AsyncPort<ArtifactStore>;
  private readonly turns: AsyncPort<TurnStore>;
  private readonly events: AsyncPort<TurnEventStore>;

  /**
   * @param ports the tables; @param blobs the content-addressed object store;
   * @param visibility who may see which turn (the turn service).
   */
  constructor(ports: ArtifactPorts, private readonly blobs: BlobStore, private readonly visibility: TurnVisibility) {
    this.artifacts = ports.artifacts;
    this.turns = ports.turns;
    this.events = ports.events;
  }

  /**
   * Store a body for (turn, event, kind). Idempotent for the same bytes.
   * @returns `{created, artifact}`.
   * @throws DomainError 400 `digest_mismatch` when `expectedSha256` differs from the bytes,
   *   409 `artifact_conflict` when the key already holds different bytes.
   */
  async put(tenantId: string, turnId: string, eventId: string, kind: string, contentType: string, bytes: Uint8Array, expectedSha256?: string): Promise<{ created: boolean; artifact: ArtifactInfo }> {
    const existing = await this.artifacts.get(tenantId, turnId, eventId, kind);
    const { sha256, size } = await this.blobs.put(bytes);
    if (expectedSha256 !== undefined && expectedSha256 !== sha256) throw new DomainError('digest_mismatch', `body sha256 is ${sha256}, not ${expectedSha256}`);
    if (existing) {
      if (existing.sha256 !== sha256) throw new DomainError('artifact_conflict', 'this artifact already holds a different body');
      return { created: false, artifact: info(existing) };
    }
    const rec: ArtifactRecord = { tenant_id: tenantId, turn_id: turnId, event_id: eventId, kind, sha256, size, content_type: contentType, created_at: new Date().toISOString() };
    await this.artifacts.insert(rec);
    return { created: true, artifact: info(rec) };
  }

  /**
   * `POST /v1/audit/artifacts`: decode the upload and store it (see `decodeUpload`, `put`).
   * @returns `{created, artifact}` (201 when created, 200 when the same bytes were already stored).
   */
  upload(tenantId: string, b: ArtifactUploadRequest): Promise<{ created: boolean; artifact: ArtifactInfo }> {
    const { bytes, contentType } = decodeUpload(b);
    return this.put(tenantId, b.turn_id, b.event_id, b.kind, contentType, bytes, b.sha256);
  }

  /** Metadata of one artifact, or undefined. */
  async get(tenantId: string, turnId: string, eventId: string, kind: string): Promise<ArtifactRecord | undefined> {
    return await this.artifacts.get(tenantId, turnId, eventId, kind);
  }

  /** Open a stored body, or null when metadata or blob is missing. */
  async open(tenantId: string, turnId: string, eventId: string, kind: string): Promise<{ meta: ArtifactRecord; stream: NodeJS.ReadableStream; size: number } | null> {
    const meta = await this.artifacts.get(tenantId, turnId, eventId, kind);
    if (!meta) return null;
    const body = await this.blobs.open(meta.sha256);
    return body ? { meta, stream: body.stream, size: body.size } : null;
  }

  /**
   * `GET /v1/audit/turns/:turn_id/artifacts/:event_id/:kind`: a body of a turn the viewer may see.
   * @throws DomainError 404 `turn_not_found`, `artifact_not_found`.
   */
  async openFor(tenantId: string, viewer: Viewer, turnId: string, eventId: string, kind: string): Promise<{ meta: ArtifactRecord; stream: NodeJS.ReadableStream; size: number }> {
    await this.visibility.visibleTurn(tenantId, viewer, turnId);
    const a = await this.open(tenantId, turnId, eventId, kind);
    if (!a) throw new DomainError('artifact_not_found', 'no such artifact');
    return a;
  }

  /** Ordered replay events of a turn with artifact metadata; null when the turn is unknown. */
  async replay(tenantId: string, turnId: string): Promise<ReplayEvent[] | null> {
    if (!await this.turns.get(tenantId, turnId)) return null;
    const arts = new Map<string, ArtifactInfo[]>();
    for (const a of await this.artifacts.ofTurn(tenantId, turnId)) {
      const list = arts.get(a.event_id) ?? [];
      list.push(info(a));
      arts.set(a.event_id, list);
    }
    return orderedEvents(await this.events.ofTurn(tenantId, turnId)).map((e) => {
      let payload: unknown = null;
      try { payload = JSON.parse(e.payload_json); } catch { /* stored text stays available */ }
      return { ...e, payload, artifacts: arts.get(e.event_id) ?? [] };
    });
  }

  /** `GET /v1/audit/turns/:turn_id/replay` for a turn the viewer may see. @throws DomainError `turn_not_found`. */
  async replayFor(tenantId: string, viewer: Viewer, turnId: string): Promise<ReplayResponse> {
    const t = await this.visibility.visibleTurn(tenantId, viewer, turnId);
    return { turn_id: t.turn_id, tenant_id: tenantId, receipt: receiptOf(t), events: (await this.replay(tenantId, t.turn_id)) ?? [] };
  }
}
