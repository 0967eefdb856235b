/**
 * Turn events on the way in and in leaf order (spec "Turn event", "Events"; DESIGN.md leaf rule):
 * validation and normalisation of wire events under the pinned tenant. Pure.
 */
import { MAX_PAYLOAD_JSON, PAYLOAD_TYPES as PAYLOAD_TYPE_LIST, TERMINAL_PAYLOAD_TYPES, type RejectReason } from '../contracts/turns.js';
import { compareEvents, leafEventOf, type LeafEvent } from '../verifier/format.js';
import type { TurnEventRecord } from './ports.js';

/** Payload types the spec names (plus the contract-only cap token events). */
export const PAYLOAD_TYPES: ReadonlySet<string> = new Set(PAYLOAD_TYPE_LIST);

/** Terminal payload types (spec "Events"). */
export const TERMINAL_TYPES: ReadonlySet<string> = new Set(TERMINAL_PAYLOAD_TYPES);

const ID_RE = /^[A-Za-z0-9_.:-]{1,128}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const MAX_TEXT = 256;

/**
 * Validate and normalise one wire event under the pinned tenant. occurred_at becomes
 * `YYYY-MM-DDTHH:mm:ss.sssZ` (so string order is time order); emitter_instance absent -> null.
 */
export function normaliseEvent(raw: unknown, tenantId: string): { ok: true; event: LeafEvent } | { ok: false; event_id: string | null; reason: RejectReason } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, event_id: null, reason: 'invalid_event' };
  const r = raw as Record<string, unknown>;
  const eventId = typeof r.event_id === 'string' ? r.event_id : null;
  const bad = (reason: RejectReason) => ({ ok: false as const, event_id: eventId, reason });
  if (eventId === null || !ID_RE.test(eventId)) return bad('invalid_event_id');
  if (typeof r.turn_id !== 'string' || !ID_RE.test(r.turn_id)) return bad('invalid_turn_id');
  for (const k of ['principal_id', 'emitter_service'] as const) {
    if (typeof r[k] !== 'string' || (r[k] as string).length === 0 || (r[k] as string).length > MAX_TEXT) return bad('invalid_event');
  }
  const inst = r.emitter_instance;
  if (inst !== undefined && inst !== null && (typeof inst !== 'string' || inst.length > MAX_TEXT)) return bad('invalid_event');
  if (typeof r.occurred_at !== 'string' || !RFC3339.test(r.occurred_at)) return bad('invalid_occurred_at');
  const t = Date.parse(r.occurred_at);
  if (!Number.isFinite(t)) return bad('invalid_occurred_at');
  const occurred = new Date(t).toISOString();
  if (occurred.length !== 24) return bad('invalid_occurred_at');
  if (typeof r.sequence_in_service !== 'number' || !Number.isSafeInteger(r.sequence_in_service) || r.sequence_in_service < 0) return bad('invalid_sequence');
  if (typeof r.payload_type !== 'string' || !PAYLOAD_TYPES.has(r.payload_type)) return bad('invalid_payload_type');
  if (typeof r.payload_json !== 'string' || r.payload_json.length > MAX_PAYLOAD_JSON) return bad('invalid_payload_json');
  try { JSON.parse(r.payload_json); } catch { return bad('invalid_payload_json'); }
  return {
    ok: true,
    event: {
      turn_id: r.turn_id, event_id: eventId, tenant_id: tenantId, principal_id: r.principal_id as string,
      emitter_service: r.emitter_service as string, emitter_instance: (inst as string | null | undefined) ?? null, occurred_at: occurred,
      sequence_in_service: r.sequence_in_service, payload_type: r.payload_type, payload_json: r.payload_json,
    },
  };
}

/** Events of a turn in leaf order, as leaf objects (exactly the ten leaf fields). */
export function orderedEvents(rows: readonly TurnEventRecord[]): LeafEvent[] {
  return rows.map((r) => leafEventOf(r)).sort(compareEvents);
}
