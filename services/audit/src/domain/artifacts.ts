/**
 * Captured bodies and replay (spec "Audit and receipts": `POST /v1/audit/artifacts`,
 * `GET /v1/audit/turns/{turn_id}/replay`, `GET /v1/audit/turns/{turn_id}/artifacts/{event_id}/{kind}`).
 *
 * Bodies (prompt, tool and model payloads) go to the content-addressed object store; the turn
 * event that mentions them carries their sha256, so a sealed receipt commits to each body through
 * its event's leaf. Metadata is keyed (tenant, turn, event, kind).
 */
import type { LeafEvent } from '../verifier/format.js';
import type { ArtifactRecord, AuditStore } from '../store/audit-store.js';
import type { ObjectStore } from '../store/object-store.js';
import { orderedEvents } from './turns.js';

/** Artifact kinds: short lowercase names such as `prompt`, `tool_input`, `model_response`. */
export const KIND_RE = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

/** Artifact metadata as answered to clients. */
export interface ArtifactInfo {
  turn_id: string;
  event_id: string;
  kind: string;
  sha256: string;
  /** Bytes. */
  size: number;
  content_type: string;
  created_at: string;
  /** Where to fetch the body. */
  url: string;
}

/** One replay event: the leaf fields, the parsed payload and its artifacts. */
export interface ReplayEvent extends LeafEvent {
  payload: unknown;
  artifacts: ArtifactInfo[];
}

/** Why a store call failed (mapped to HTTP by the route). */
export class ArtifactError extends Error {
  constructor(readonly code: 'conflict' | 'digest_mismatch', message: string) { super(message); this.name = 'ArtifactError'; }
}

function info(a: ArtifactRecord): ArtifactInfo {
  return {
    turn_id: a.turn_id, event_id: a.event_id, kind: a.kind, sha256: a.sha256, size: a.size, content_type: a.content_type, created_at: a.created_at,
    url: `/v1/audit/turns/${encodeURIComponent(a.turn_id)}/artifacts/${encodeURIComponent(a.event_id)}/${encodeURIComponent(a.kind)}`,
  };
}

/** Artifact storage and replay. */
export class ArtifactService {
  constructor(private readonly store: AuditStore, private readonly objects: ObjectStore) {}

  /**
   * Store a body for (turn, event, kind). Idempotent for the same bytes.
   * @returns `{created, artifact}`.
   * @throws ArtifactError `digest_mismatch` when `expectedSha256` differs from the bytes,
   *   `conflict` when the key already holds different bytes.
   */
  put(tenantId: string, turnId: string, eventId: string, kind: string, contentType: string, bytes: Uint8Array, expectedSha256?: string): { created: boolean; artifact: ArtifactInfo } {
    const existing = this.store.getArtifact(tenantId, turnId, eventId, kind);
    const { sha256, size } = this.objects.put(bytes);
    if (expectedSha256 !== undefined && expectedSha256 !== sha256) throw new ArtifactError('digest_mismatch', `body sha256 is ${sha256}, not ${expectedSha256}`);
    if (existing) {
      if (existing.sha256 !== sha256) throw new ArtifactError('conflict', 'this artifact already holds a different body');
      return { created: false, artifact: info(existing) };
    }
    const rec: ArtifactRecord = { tenant_id: tenantId, turn_id: turnId, event_id: eventId, kind, sha256, size, content_type: contentType, created_at: new Date().toISOString() };
    this.store.insertArtifact(rec);
    return { created: true, artifact: info(rec) };
  }

  /** Metadata of one artifact, or undefined. */
  get(tenantId: string, turnId: string, eventId: string, kind: string): ArtifactRecord | undefined {
    return this.store.getArtifact(tenantId, turnId, eventId, kind);
  }

  /** Open a stored body, or null when metadata or blob is missing. */
  open(tenantId: string, turnId: string, eventId: string, kind: string): { meta: ArtifactRecord; stream: NodeJS.ReadableStream; size: number } | null {
    const meta = this.store.getArtifact(tenantId, turnId, eventId, kind);
    if (!meta) return null;
    const body = this.objects.open(meta.sha256);
    return body ? { meta, stream: body.stream, size: body.size } : null;
  }

  /** Ordered replay events of a turn with artifact metadata; null when the turn is unknown. */
  replay(tenantId: string, turnId: string): ReplayEvent[] | null {
    if (!this.store.getTurn(tenantId, turnId)) return null;
    const arts = new Map<string, ArtifactInfo[]>();
    for (const a of this.store.artifactsOfTurn(tenantId, turnId)) {
      const list = arts.get(a.event_id) ?? [];
      list.push(info(a));
      arts.set(a.event_id, list);
    }
    return orderedEvents(this.store.eventsOfTurn(tenantId, turnId)).map((e) => {
      let payload: unknown = null;
      try { payload = JSON.parse(e.payload_json); } catch { /* stored text stays available */ }
      return { ...e, payload, artifacts: arts.get(e.event_id) ?? [] };
    });
  }
}
