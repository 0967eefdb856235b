/**
 * Parse and normalise receipt wire data into typed objects (the sigstore-js "parse, normalise, then
 * verify" split). Strict: signed objects must carry exactly their keys with the right JSON types and
 * lowercase-hex hashes; anything else is a `VerificationError` with code `MALFORMED` and a path.
 * A proof export without `format` is v1 (every suffix row in full); `format: "1.1"` also admits
 * redacted rows (issue 11 item 3, docs/receipts.md). Parsing never recurses into free-form JSON.
 */
import { RECEIPT_FORMAT_V1_1, RECEIPT_FORMAT_V2, type PublicSignature } from '../contracts/receipt-format.js';
import { ENVELOPE_PAYLOAD_KEYS, LEAF_EVENT_KEYS, type EnvelopePayload, type LeafEvent } from './format.js';
import {
  VerificationError, type EnvelopeRecord, type ProofExport, type ProofSuffixRow, type ReceiptBundle, type ReceiptDetail, type ReceiptObject,
  type RedactedSuffixRow, type SuffixRow,
} from './types.js';

const HEX64 = /^[0-9a-f]{64}$/;

function fail(path: string, msg: string): never {
  throw new VerificationError('MALFORMED', `${path}: ${msg}`, path);
}

function obj(v: unknown, path: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, 'expected an object');
  return v as Record<string, unknown>;
}

function exactKeys(o: Record<string, unknown>, keys: readonly string[], path: string, optional: readonly string[] = []): void {
  for (const k of keys) if (!Object.prototype.hasOwnProperty.call(o, k)) fail(`${path}.${k}`, 'missing');
  for (const k of Object.keys(o)) if (!keys.includes(k) && !optional.includes(k)) fail(`${path}.${k}`, 'unexpected key');
}

function str(o: Record<string, unknown>, k: string, path: string): string {
  const v = o[k];
  if (typeof v !== 'string') fail(`${path}.${k}`, 'expected a string');
  return v;
}

function strOrNull(o: Record<string, unknown>, k: string, path: string): string | null {
  const v = o[k];
  if (v === null) return null;
  if (typeof v !== 'string') fail(`${path}.${k}`, 'expected a string or null');
  return v;
}

function int(o: Record<string, unknown>, k: string, path: string): number {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(`${path}.${k}`, 'expected a non-negative integer');
  return v;
}

function hex64(o: Record<string, unknown>, k: string, path: string): string {
  const v = str(o, k, path);
  if (!HEX64.test(v)) fail(`${path}.${k}`, 'expected 64 lowercase hex digits');
  return v;
}

function strArray(v: unknown, path: string, hex = false): string[] {
  if (!Array.isArray(v)) fail(path, 'expected an array');
  return v.map((x, i) => {
    if (typeof x !== 'string') fail(`${path}[${i}]`, 'expected a string');
    if (hex && !HEX64.test(x)) fail(`${path}[${i}]`, 'expected 64 lowercase hex digits');
    return x;
  });
}

/** Parse a receipt object (unsigned; only its shape is checked). */
export function parseReceiptObject(v: unknown, path = 'receipt'): ReceiptObject {
  const o = obj(v, path);
  const status = str(o, 'status', path);
  if (status !== 'pending' && status !== 'sealed' && status !== 'verified') fail(`${path}.status`, 'unknown status');
  if (typeof o.sealed !== 'boolean') fail(`${path}.sealed`, 'expected a boolean');
  return {
    id: str(o, 'id', path), turn_id: str(o, 'turn_id', path), tier: str(o, 'tier', path), status, sealed: o.sealed,
    receipt_url: str(o, 'receipt_url', path), proof_url: str(o, 'proof_url', path), bundle_url: str(o, 'bundle_url', path),
  };
}

/** Parse an envelope payload: exactly the spec's keys. */
export function parseEnvelopePayload(v: unknown, path = 'envelope.payload'): EnvelopePayload {
  const o = obj(v, path);
  exactKeys(o, ENVELOPE_PAYLOAD_KEYS, path);
  const detailType = str(o, 'detail_type', path);
  if (detailType !== 'turn_envelope_v1') fail(`${path}.detail_type`, 'expected turn_envelope_v1');
  const canon = str(o, 'canonicalization_version', path);
  if (canon !== 'rfc8785-v1') fail(`${path}.canonicalization_version`, 'expected rfc8785-v1');
  const status = str(o, 'status', path);
  if (status !== 'completed' && status !== 'failed') fail(`${path}.status`, 'expected completed or failed');
  const reason = str(o, 'seal_reason', path);
  if (reason !== 'terminal_event' && reason !== 'watermark_timeout' && reason !== 'manual') fail(`${path}.seal_reason`, 'unknown seal_reason');
  return {
    detail_type: detailType, tenant_id: str(o, 'tenant_id', path), turn_id: str(o, 'turn_id', path), status, seal_reason: reason,
    canonicalization_version: canon, event_count: int(o, 'event_count', path),
    event_ids: strArray(o.event_ids, `${path}.event_ids`), leaf_hashes: strArray(o.leaf_hashes, `${path}.leaf_hashes`, true),
    merkle_root: hex64(o, 'merkle_root', path),
  };
}

const ENVELOPE_KEYS = ['payload', 'signature', 'key_version', 'audit_log_id', 'audit_seq', 'audit_previous_hash', 'audit_signature', 'audit_chain_hash'] as const;

const B64URL_SIG = /^[A-Za-z0-9_-]{86}$/;

/** Parse a v2 `public_signature`: null, or exactly `{alg: "Ed25519", kid, sig}` with `sig` 64 bytes base64url. */
export function parsePublicSignature(v: unknown, path: string): PublicSignature | null {
  if (v === null) return null;
  const o = obj(v, path);
  exactKeys(o, ['alg', 'kid', 'sig'], path);
  if (o.alg !== 'Ed25519') fail(`${path}.alg`, 'expected Ed25519');
  const kid = str(o, 'kid', path);
  if (!kid) fail(`${path}.kid`, 'expected a key id');
  const sig = str(o, 'sig', path);
  if (!B64URL_SIG.test(sig)) fail(`${path}.sig`, 'expected a 64-byte signature in base64url');
  return { alg: 'Ed25519', kid, sig };
}

/**
 * Parse an envelope record (payload, signature, anchor fields; v2 also `public_signature`, kept
 * only when present so a v1 envelope re-serialises byte for byte).
 */
export function parseEnvelopeRecord(v: unknown, path = 'envelope'): EnvelopeRecord {
  const o = obj(v, path);
  exactKeys(o, ENVELOPE_KEYS, path, ['public_signature']);
  const out: EnvelopeRecord = {
    payload: parseEnvelopePayload(o.payload, `${path}.payload`), signature: hex64(o, 'signature', path), key_version: str(o, 'key_version', path),
    audit_log_id: int(o, 'audit_log_id', path), audit_seq: int(o, 'audit_seq', path), audit_previous_hash: hex64(o, 'audit_previous_hash', path),
    audit_signature: hex64(o, 'audit_signature', path), audit_chain_hash: hex64(o, 'audit_chain_hash', path),
  };
  if (Object.prototype.hasOwnProperty.call(o, 'public_signature')) out.public_signature = parsePublicSignature(o.public_signature, `${path}.public_signature`);
  return out;
}

/** Parse one turn event: exactly the ten leaf keys. */
export function parseLeafEvent(v: unknown, path: string): LeafEvent {
  const o = obj(v, path);
  exactKeys(o, LEAF_EVENT_KEYS, path);
  return {
    turn_id: str(o, 'turn_id', path), event_id: str(o, 'event_id', path), tenant_id: str(o, 'tenant_id', path),
    principal_id: str(o, 'principal_id', path), emitter_service: str(o, 'emitter_service', path),
    emitter_instance: strOrNull(o, 'emitter_instance', path), occurred_at: str(o, 'occurred_at', path),
    sequence_in_service: int(o, 'sequence_in_service', path), payload_type: str(o, 'payload_type', path),
    payload_json: str(o, 'payload_json', path),
  };
}

const ROW_KEYS = ['id', 'seq', 'signed_payload', 'signature', 'previous_hash', 'key_version', 'chain_hash'] as const;

/** Parse one suffix row. */
export function parseSuffixRow(v: unknown, path: string): SuffixRow {
  const o = obj(v, path);
  exactKeys(o, ROW_KEYS, path);
  return {
    id: int(o, 'id', path), seq: int(o, 'seq', path), signed_payload: str(o, 'signed_payload', path), signature: hex64(o, 'signature', path),
    previous_hash: hex64(o, 'previous_hash', path), key_version: str(o, 'key_version', path), chain_hash: hex64(o, 'chain_hash', path),
  };
}

const REDACTED_ROW_KEYS = ['id', 'seq', 'signed_payload_sha256', 'signature', 'previous_hash', 'key_version', 'chain_hash'] as const;

/** Parse one redacted suffix row (v1.1): the link fields and `signed_payload_sha256`, no payload. */
export function parseRedactedRow(v: unknown, path: string): RedactedSuffixRow {
  const o = obj(v, path);
  exactKeys(o, REDACTED_ROW_KEYS, path);
  return {
    id: int(o, 'id', path), seq: int(o, 'seq', path), signed_payload_sha256: hex64(o, 'signed_payload_sha256', path),
    signature: hex64(o, 'signature', path), previous_hash: hex64(o, 'previous_hash', path), key_version: str(o, 'key_version', path),
    chain_hash: hex64(o, 'chain_hash', path),
  };
}

/**
 * Parse one suffix row of a proof in `format` (`1` or `1.1`): in full, or (v1.1 only) redacted,
 * told apart by `signed_payload_sha256` standing where `signed_payload` would.
 */
export function parseProofRow(v: unknown, path: string, format: ProofFormat): ProofSuffixRow {
  const o = obj(v, path);
  if (Object.prototype.hasOwnProperty.call(o, 'signed_payload_sha256') && !Object.prototype.hasOwnProperty.call(o, 'signed_payload')) {
    if (format === '1') fail(`${path}.signed_payload_sha256`, 'a redacted row needs a proof of format 1.1 or 2');
    return parseRedactedRow(o, path);
  }
  return parseSuffixRow(o, path);
}

/** Parse a receipt detail `{receipt, envelope, events}`. */
export function parseReceiptDetail(v: unknown, path = 'detail'): ReceiptDetail {
  const o = obj(v, path);
  exactKeys(o, ['receipt', 'envelope', 'events'], path);
  if (!Array.isArray(o.events)) fail(`${path}.events`, 'expected an array');
  return {
    receipt: parseReceiptObject(o.receipt, `${path}.receipt`),
    envelope: parseEnvelopeRecord(o.envelope, `${path}.envelope`),
    events: o.events.map((e, i) => parseLeafEvent(e, `${path}.events[${i}]`)),
  };
}

/** A proof's format: `1` (no `format` key), `1.1` or `2`. */
export type ProofFormat = '1' | typeof RECEIPT_FORMAT_V1_1 | typeof RECEIPT_FORMAT_V2;

/**
 * Parse a proof export `{format?, receipt, envelope, audit_chain: {suffix}, checkpoint?}`. No
 * `format` is v1; `"1.1"` admits redacted rows; `"2"` (issue 22) also requires the envelope's
 * `public_signature` (object or null) and `checkpoint` (note text or null), which v1 and v1.1 must
 * not carry; any other value is refused (`MALFORMED`).
 */
export function parseProofExport(v: unknown, path = 'proof'): ProofExport {
  const o = obj(v, path);
  exactKeys(o, ['receipt', 'envelope', 'audit_chain'], path, ['format', 'checkpoint']);
  let format: ProofFormat = '1';
  if (Object.prototype.hasOwnProperty.call(o, 'format')) {
    if (o.format !== RECEIPT_FORMAT_V1_1 && o.format !== RECEIPT_FORMAT_V2) {
      fail(`${path}.format`, `unsupported format ${JSON.stringify(o.format)}; this verifier reads v1 (no format), "1.1" and "2"`);
    }
    format = o.format;
  }
  const chain = obj(o.audit_chain, `${path}.audit_chain`);
  exactKeys(chain, ['suffix'], `${path}.audit_chain`);
  if (!Array.isArray(chain.suffix)) fail(`${path}.audit_chain.suffix`, 'expected an array');
  const envelope = parseEnvelopeRecord(o.envelope, `${path}.envelope`);
  const suffix = chain.suffix.map((r, i) => parseProofRow(r, `${path}.audit_chain.suffix[${i}]`, format));
  const hasCheckpoint = Object.prototype.hasOwnProperty.call(o, 'checkpoint');
  if (format === RECEIPT_FORMAT_V2) {
    if (envelope.public_signature === undefined) fail(`${path}.envelope.public_signature`, 'missing (format 2)');
    if (!hasCheckpoint) fail(`${path}.checkpoint`, 'missing (format 2)');
    if (o.checkpoint !== null && typeof o.checkpoint !== 'string') fail(`${path}.checkpoint`, 'expected note text or null');
  } else {
    if (envelope.public_signature !== undefined) fail(`${path}.envelope.public_signature`, 'unexpected key (only in format 2)');
    if (hasCheckpoint) fail(`${path}.checkpoint`, 'unexpected key (only in format 2)');
  }
  const out: ProofExport = {
    receipt: parseReceiptObject(o.receipt, `${path}.receipt`),
    envelope,
    audit_chain: { suffix },
  };
  if (format === '1') return out;
  return format === RECEIPT_FORMAT_V2 ? { format, ...out, checkpoint: o.checkpoint as string | null } : { format, ...out };
}

/** Parse a bundle `{detail, proof}`. */
export function parseBundle(v: unknown): ReceiptBundle {
  const o = obj(v, 'bundle');
  exactKeys(o, ['detail', 'proof'], 'bundle');
  return { detail: parseReceiptDetail(o.detail, 'detail'), proof: parseProofExport(o.proof, 'proof') };
}

/** True when `v` looks like a bundle (has both `detail` and `proof`). */
export function isBundleShape(v: unknown): boolean {
  return typeof v === 'object' && v !== null && 'detail' in v && 'proof' in v;
}
