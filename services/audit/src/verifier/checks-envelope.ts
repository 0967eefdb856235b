/**
 * The verifier's checks of the envelope side (DESIGN.md "Receipt format v1"): structure, binding,
 * leaves from events, Merkle root, envelope HMAC. One pure function per check.
 */
import { jcs } from '../../../shared/identity/jcs.js';
import { compareEvents, envelopeSignature, leafHash } from './format.js';
import { safeEqual } from './hash.js';
import { merkleRootHex } from './merkle.js';
import { CHECK_TITLES, checkResult, Collector, type CheckInput } from './check-kit.js';
import { isRedactedRow, type CheckResult } from './types.js';

/**
 * 1. structure: the input parsed into a bundle (parsing and the input bounds of `limits.ts` come
 * before the pipeline). A v1.1 proof's format and redacted rows are named in the detail.
 */
export function checkStructure({ bundle }: CheckInput): CheckResult {
  const suffix = bundle.proof.audit_chain.suffix;
  let detail = `${bundle.detail.events.length} events, ${suffix.length} suffix rows`;
  if (bundle.proof.format !== undefined) detail += ` (format ${bundle.proof.format}, ${suffix.filter(isRedactedRow).length} redacted)`;
  return { id: 'structure', title: CHECK_TITLES.structure, ok: true, detail, errors: [] };
}

/** 2. binding: receipt, detail and proof name the same turn and carry the same envelope. */
export function checkBinding({ bundle }: CheckInput): CheckResult {
  const { detail, proof } = bundle;
  const env = proof.envelope;
  const p = env.payload;
  const c = new Collector('BINDING_ERROR');
  if (jcs(detail.envelope) !== jcs(env)) c.add('detail.envelope differs from proof.envelope', 'detail.envelope');
  if (proof.receipt.turn_id !== p.turn_id) c.add(`proof.receipt.turn_id ${proof.receipt.turn_id} is not the envelope's turn ${p.turn_id}`, 'proof.receipt.turn_id');
  if (detail.receipt.turn_id !== p.turn_id) c.add(`detail.receipt.turn_id ${detail.receipt.turn_id} is not the envelope's turn ${p.turn_id}`, 'detail.receipt.turn_id');
  if (p.event_ids.length !== p.event_count || p.leaf_hashes.length !== p.event_count) {
    c.add(`event_count ${p.event_count} disagrees with ${p.event_ids.length} event_ids / ${p.leaf_hashes.length} leaf_hashes`, 'envelope.payload.event_count');
  }
  return checkResult('binding', c, `turn ${p.turn_id}`);
}

/** 3. leaves: each event's leaf `H(0x00 || JCS(event))`; ids, turn, tenant and order match the envelope. */
export function checkLeaves({ bundle, hash }: CheckInput): CheckResult {
  const p = bundle.proof.envelope.payload;
  const ev = bundle.detail.events;
  const c = new Collector('LEAF_ERROR');
  if (ev.length !== p.event_count) c.add(`${ev.length} events given, envelope has ${p.event_count}`, 'detail.events');
  const seen = new Set<string>();
  for (let i = 0; i < ev.length; i++) {
    const e = ev[i]!;
    const at = `detail.events[${i}]`;
    if (seen.has(e.event_id)) c.add(`event ${e.event_id} appears twice`, at);
    seen.add(e.event_id);
    if (e.turn_id !== p.turn_id) c.add(`event ${e.event_id} belongs to turn ${e.turn_id}`, `${at}.turn_id`);
    if (e.tenant_id !== p.tenant_id) c.add(`event ${e.event_id} belongs to tenant ${e.tenant_id}`, `${at}.tenant_id`);
    if (i > 0 && compareEvents(ev[i - 1]!, e) >= 0) c.add(`event ${e.event_id} is out of order`, at);
    if (p.event_ids[i] !== e.event_id) c.add(`event_ids[${i}] is ${p.event_ids[i] ?? 'missing'}, event is ${e.event_id}`, `${at}.event_id`);
    const leaf = leafHash(e, hash);
    if (p.leaf_hashes[i] === undefined || !safeEqual(leaf, p.leaf_hashes[i]!)) c.add(`leaf of event ${e.event_id} does not match leaf_hashes[${i}]`, at);
  }
  return checkResult('leaves', c, `${ev.length} leaves recomputed from events`);
}

/** 4. merkle_root: the RFC 6962 root over leaf_hashes equals merkle_root. */
export function checkMerkleRoot({ bundle, hash }: CheckInput): CheckResult {
  const p = bundle.proof.envelope.payload;
  const c = new Collector('MERKLE_ROOT_ERROR');
  const root = merkleRootHex(p.leaf_hashes, hash);
  if (!safeEqual(root, p.merkle_root)) c.add(`root over leaf_hashes is ${root}, envelope says ${p.merkle_root}`, 'envelope.payload.merkle_root');
  return checkResult('merkle_root', c, `root ${p.merkle_root.slice(0, 16)}... over ${p.leaf_hashes.length} leaves`);
}

/** 5. envelope_hmac: HMAC(JCS(payload)) under the key of the envelope's key_version. */
export function checkEnvelopeHmac({ bundle, keys, hash }: CheckInput): CheckResult {
  const env = bundle.proof.envelope;
  const c = new Collector('ENVELOPE_SIGNATURE_ERROR');
  const key = keys.get(env.key_version);
  if (key === undefined) c.add(`no key supplied for key_version ${env.key_version}`, 'envelope.key_version', 'UNKNOWN_KEY_VERSION');
  else if (!safeEqual(envelopeSignature(env.payload, key, hash), env.signature)) c.add(`envelope signature does not verify under key_version ${env.key_version}`, 'envelope.signature');
  return checkResult('envelope_hmac', c, `signed under key_version ${env.key_version}`);
}
