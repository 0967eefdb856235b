/**
 * Receipt format v1, the byte-exact formulas (DESIGN.md "Receipt format v1"; spec "Audit log row",
 * "Turn event", "Turn envelope"). One implementation, used by the service to write and by the
 * verifier to check, so the two cannot drift. Pure: no I/O, hashes through an injected provider.
 */
import { jcs } from '../../../shared/identity/jcs.js';
import type { AnchorDetail, EnvelopePayload, LeafEvent } from '../contracts/receipt-format.js';
import type { Json } from '../contracts/common.js';
import { type HashProvider, pureHashProvider, toHex, utf8 } from './hash.js';

export {
  ENVELOPE_DETAIL_TYPE, CANONICALIZATION_VERSION, ANCHOR_ACTION, ANCHOR_RESOURCE_TYPE,
} from '../contracts/receipt-format.js';
export type { LeafEvent, EnvelopeStatus, SealReason, EnvelopePayload, AnchorDetail } from '../contracts/receipt-format.js';
export type { Json } from '../contracts/common.js';

/**
 * The signed fields of an audit row (DESIGN.md: signed_payload = JCS of exactly these keys,
 * absent values as null). `timestamp` is RFC 3339 UTC with milliseconds.
 */
export interface SignedRowFields {
  tenant_id: string;
  seq: number;
  timestamp: string;
  user_id: string | null;
  action: string;
  resource_type: string | null;
  resource_id: string | null;
  detail_type: string | null;
  detail: Json;
  previous_hash: string;
  agent_id: string | null;
  agent_chain: Json;
  delegated_by: string | null;
  key_version: string;
}

/** Keys of `SignedRowFields`, in the order the spec lists them (JCS sorts anyway). */
export const SIGNED_ROW_KEYS = [
  'tenant_id', 'seq', 'timestamp', 'user_id', 'action', 'resource_type', 'resource_id', 'detail_type',
  'detail', 'previous_hash', 'agent_id', 'agent_chain', 'delegated_by', 'key_version',
] as const;

/** Keys of a leaf event, exactly. */
export const LEAF_EVENT_KEYS = [
  'turn_id', 'event_id', 'tenant_id', 'principal_id', 'emitter_service', 'emitter_instance',
  'occurred_at', 'sequence_in_service', 'payload_type', 'payload_json',
] as const;

/** Keys of an envelope payload, exactly. */
export const ENVELOPE_PAYLOAD_KEYS = [
  'detail_type', 'tenant_id', 'turn_id', 'status', 'seal_reason', 'canonicalization_version',
  'event_count', 'event_ids', 'leaf_hashes', 'merkle_root',
] as const;

/** `H(x)`: SHA-256 lowercase hex of the UTF-8 bytes of `s` (or of raw bytes). */
export function hashHex(data: string | Uint8Array, hp: HashProvider = pureHashProvider): string {
  return toHex(hp.sha256(typeof data === 'string' ? utf8(data) : data));
}

/** HMAC-SHA256 lowercase hex of the UTF-8 text `data` under the UTF-8 bytes of `key`. */
export function hmacHex(key: string, data: string, hp: HashProvider = pureHashProvider): string {
  return toHex(hp.hmacSha256(utf8(key), utf8(data)));
}

/** Genesis `previous_hash` of a tenant chain: `H(JCS({type: "genesis", tenant_id}))`. */
export function genesisHash(tenantId: string, hp: HashProvider = pureHashProvider): string {
  return hashHex(jcs({ type: 'genesis', tenant_id: tenantId }), hp);
}

const str = (v: string | null | undefined): string => (v === null || v === undefined ? 'null' : JSON.stringify(v));

/**
 * `signed_payload` text of a row: JCS of exactly the signed keys (absent as null).
 *
 * Written out in JCS key order (UTF-16 code-unit order of the fixed key set) instead of going
 * through the generic canonicaliser for the whole object: it is the hot path of every append.
 * Strings serialise as `JSON.stringify` does, which RFC 8785 adopts; `seq` is a safe integer;
 * `detail` and `agent_chain` go through `jcs`. A unit test checks equality with `jcs()` of the
 * object. Pass `detailJcs` when the caller already holds `jcs(detail)`.
 * @throws TypeError when seq is not a safe integer or a JSON value has no canonical form.
 */
export function signedPayloadText(f: SignedRowFields, detailJcs?: string): string {
  if (!Number.isSafeInteger(f.seq)) throw new TypeError('seq must be a safe integer');
  return `{"action":${str(f.action)},"agent_chain":${f.agent_chain === undefined ? 'null' : jcs(f.agent_chain)},"agent_id":${str(f.agent_id)}`
    + `,"delegated_by":${str(f.delegated_by)},"detail":${detailJcs ?? (f.detail === undefined ? 'null' : jcs(f.detail))}`
    + `,"detail_type":${str(f.detail_type)},"key_version":${str(f.key_version)},"previous_hash":${str(f.previous_hash)}`
    + `,"resource_id":${str(f.resource_id)},"resource_type":${str(f.resource_type)},"seq":${f.seq},"tenant_id":${str(f.tenant_id)}`
    + `,"timestamp":${str(f.timestamp)},"user_id":${str(f.user_id)}}`;
}

/** Generic form of `signedPayloadText` (JCS of the object); the reference the fast one is tested against. */
export function signedPayloadTextGeneric(f: SignedRowFields): string {
  const o: Record<string, unknown> = {};
  for (const k of SIGNED_ROW_KEYS) o[k] = f[k] === undefined ? null : f[k];
  return jcs(o);
}

/** The JCS text `{id, previous_hash, signature}` hashed into a row's chain_hash. */
export function chainLinkText(id: number, previousHash: string, signature: string): string {
  return jcs({ id, previous_hash: previousHash, signature });
}

/** A row's `chain_hash` = `H(JCS({id, previous_hash, signature}))`; the next row's previous_hash. */
export function chainHash(id: number, previousHash: string, signature: string, hp: HashProvider = pureHashProvider): string {
  return hashHex(chainLinkText(id, previousHash, signature), hp);
}

/** The leaf object of an event: exactly the ten leaf keys (emitter_instance null when absent). */
export function leafEventOf(e: LeafEvent): LeafEvent {
  return {
    turn_id: e.turn_id, event_id: e.event_id, tenant_id: e.tenant_id, principal_id: e.principal_id,
    emitter_service: e.emitter_service, emitter_instance: e.emitter_instance ?? null, occurred_at: e.occurred_at,
    sequence_in_service: e.sequence_in_service, payload_type: e.payload_type, payload_json: e.payload_json,
  };
}

/** `leaf = H(0x00 || JCS(event))`, lowercase hex. */
export function leafHash(e: LeafEvent, hp: HashProvider = pureHashProvider): string {
  const body = utf8(jcs(leafEventOf(e)));
  const buf = new Uint8Array(body.length + 1);
  buf[0] = 0x00;
  buf.set(body, 1);
  return toHex(hp.sha256(buf));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Leaf order: (occurred_at, emitter_service, sequence_in_service, event_id). Strings compare by
 * UTF-16 code unit (plain `<`), sequence_in_service numerically. occurred_at is stored normalised
 * (`YYYY-MM-DDTHH:mm:ss.sssZ`), so string order is time order.
 */
export function compareEvents(a: LeafEvent, b: LeafEvent): number {
  return cmp(a.occurred_at, b.occurred_at)
    || cmp(a.emitter_service, b.emitter_service)
    || (a.sequence_in_service - b.sequence_in_service)
    || cmp(a.event_id, b.event_id);
}

/** `H(JCS(envelope payload))`. */
export function envelopeHash(p: EnvelopePayload, hp: HashProvider = pureHashProvider): string {
  return hashHex(jcs(p), hp);
}

/** Envelope `signature` = HMAC(JCS(envelope payload)) under `key`. */
export function envelopeSignature(p: EnvelopePayload, key: string, hp: HashProvider = pureHashProvider): string {
  return hmacHex(key, jcs(p), hp);
}

/** The anchor row's detail for an envelope. */
export function anchorDetailOf(p: EnvelopePayload, signature: string, hp: HashProvider = pureHashProvider): AnchorDetail {
  return {
    turn_id: p.turn_id, status: p.status, seal_reason: p.seal_reason, event_count: p.event_count,
    merkle_root: p.merkle_root, envelope_hash: envelopeHash(p, hp), envelope_signature: signature,
  };
}
