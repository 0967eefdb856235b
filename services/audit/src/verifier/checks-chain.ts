/**
 * The verifier's checks of the audit chain side (DESIGN.md "Receipt format v1"; docs/receipts.md):
 * the anchor row's commitment to the envelope, every full suffix row's HMAC, and the continuity of
 * the suffix across full and (v1.1) redacted rows. One pure function per check. A signed payload is
 * measured (`limits.ts`) before it is parsed or canonicalised, so an over-deep row is a failed
 * check (`INPUT_TOO_DEEP`), never a stack overflow (issue 11 item 4).
 */
import { jcs } from '../../../shared/identity/jcs.js';
import {
  ANCHOR_ACTION, ANCHOR_RESOURCE_TYPE, ENVELOPE_DETAIL_TYPE, SIGNED_ROW_KEYS, anchorDetailOf, chainHash, hmacHex,
} from './format.js';
import { safeEqual } from './hash.js';
import { checkResult, Collector, type CheckInput } from './check-kit.js';
import { jsonNestingDepth, VERIFIER_LIMITS } from './limits.js';
import { isRedactedRow, type CheckResult, type ProofSuffixRow } from './types.js';

/**
 * A signed payload text parsed into an object, after its depth was measured: the object, or the
 * failure already recorded in `c` (`INPUT_TOO_DEEP` past `maxDepth`, else the check's own code).
 */
function signedObject(text: string, maxDepth: number, c: Collector, label: string, at: string): Record<string, unknown> | null {
  if (jsonNestingDepth(text, maxDepth) > maxDepth) {
    c.add(`${label}: signed_payload nests deeper than ${maxDepth} levels; refused without parsing it`, `${at}.signed_payload`, 'INPUT_TOO_DEEP');
    return null;
  }
  let sp: unknown;
  try { sp = JSON.parse(text); } catch { sp = undefined; }
  if (typeof sp !== 'object' || sp === null || Array.isArray(sp)) {
    c.add(`${label}: signed_payload is not a JSON object`, `${at}.signed_payload`);
    return null;
  }
  return sp as Record<string, unknown>;
}

/** Redacted rows after the last full row of `suffix`: no later signed row pins their links. */
export function redactedTail(suffix: readonly ProofSuffixRow[]): number {
  let n = 0;
  for (let i = suffix.length - 1; i >= 0 && isRedactedRow(suffix[i]!); i--) n++;
  return n;
}

/** 6. anchor: suffix[0] is the `turn.envelope.sealed` row, in full, committing to this envelope. */
export function checkAnchor({ bundle, hash, limits = VERIFIER_LIMITS }: CheckInput): CheckResult {
  const env = bundle.proof.envelope;
  const p = env.payload;
  const c = new Collector('ANCHOR_ERROR');
  const row = bundle.proof.audit_chain.suffix[0];
  if (!row) c.add('the proof has no chain suffix', 'proof.audit_chain.suffix');
  else {
    if (row.id !== env.audit_log_id) c.add(`suffix[0].id ${row.id} is not audit_log_id ${env.audit_log_id}`, 'envelope.audit_log_id');
    if (row.seq !== env.audit_seq) c.add(`suffix[0].seq ${row.seq} is not audit_seq ${env.audit_seq}`, 'envelope.audit_seq');
    if (row.previous_hash !== env.audit_previous_hash) c.add('suffix[0].previous_hash differs from audit_previous_hash', 'envelope.audit_previous_hash');
    if (row.signature !== env.audit_signature) c.add('suffix[0].signature differs from audit_signature', 'envelope.audit_signature');
    if (row.chain_hash !== env.audit_chain_hash) c.add('suffix[0].chain_hash differs from audit_chain_hash', 'envelope.audit_chain_hash');
    let sp: Record<string, unknown> | null = null;
    if (isRedactedRow(row)) c.add('the anchoring row suffix[0] is redacted; it must be given in full', 'proof.audit_chain.suffix[0]');
    else sp = signedObject(row.signed_payload, limits.maxDepth, c, 'anchor', 'proof.audit_chain.suffix[0]');
    if (sp) {
      if (sp.action !== ANCHOR_ACTION) c.add(`anchor action is ${String(sp.action)}`, 'suffix[0].signed_payload.action');
      if (sp.resource_type !== ANCHOR_RESOURCE_TYPE) c.add(`anchor resource_type is ${String(sp.resource_type)}`, 'suffix[0].signed_payload.resource_type');
      if (sp.resource_id !== p.turn_id) c.add(`anchor resource_id ${String(sp.resource_id)} is not turn ${p.turn_id}`, 'suffix[0].signed_payload.resource_id');
      if (sp.detail_type !== ENVELOPE_DETAIL_TYPE) c.add(`anchor detail_type is ${String(sp.detail_type)}`, 'suffix[0].signed_payload.detail_type');
      if (sp.tenant_id !== p.tenant_id) c.add(`anchor tenant ${String(sp.tenant_id)} is not ${p.tenant_id}`, 'suffix[0].signed_payload.tenant_id');
      let detailText = '';
      try { detailText = jcs(sp.detail ?? null); } catch { /* reported below */ }
      if (detailText !== jcs(anchorDetailOf(p, env.signature, hash))) c.add('anchor detail does not commit to this envelope (hash, signature, root or status differ)', 'suffix[0].signed_payload.detail');
    }
  }
  return checkResult('anchor', c, `row id ${env.audit_log_id} seq ${env.audit_seq} commits to the envelope`);
}

/**
 * 7. suffix_hmac: every full suffix row's HMAC under its key_version; its signed payload agrees with
 * the row. Redacted rows (v1.1) carry no payload: their HMAC cannot be checked offline, so they are
 * counted, not judged (continuity covers their links).
 */
export function checkSuffixHmac({ bundle, keys, hash, limits = VERIFIER_LIMITS }: CheckInput): CheckResult {
  const p = bundle.proof.envelope.payload;
  const suffix = bundle.proof.audit_chain.suffix;
  const c = new Collector('ROW_SIGNATURE_ERROR');
  const versions = new Set<string>();
  let full = 0;
  suffix.forEach((row, i) => {
    if (isRedactedRow(row)) return;
    full++;
    const at = `proof.audit_chain.suffix[${i}]`;
    versions.add(row.key_version);
    const key = keys.get(row.key_version);
    if (key === undefined) c.add(`row seq ${row.seq}: no key supplied for key_version ${row.key_version}`, `${at}.key_version`, 'UNKNOWN_KEY_VERSION');
    else if (!safeEqual(hmacHex(key, row.signed_payload, hash), row.signature)) c.add(`row seq ${row.seq}: signature does not verify under key_version ${row.key_version}`, `${at}.signature`);
    const sp = signedObject(row.signed_payload, limits.maxDepth, c, `row seq ${row.seq}`, at);
    if (!sp) return;
    const keysOk = Object.keys(sp).length === SIGNED_ROW_KEYS.length && SIGNED_ROW_KEYS.every((k) => Object.prototype.hasOwnProperty.call(sp, k));
    if (!keysOk) c.add(`row seq ${row.seq}: signed_payload does not hold exactly the signed fields`, `${at}.signed_payload`);
    if (jcs(sp) !== row.signed_payload) c.add(`row seq ${row.seq}: signed_payload is not canonical JSON`, `${at}.signed_payload`);
    if (sp.seq !== row.seq) c.add(`row seq ${row.seq}: signed seq is ${String(sp.seq)}`, `${at}.seq`);
    if (sp.previous_hash !== row.previous_hash) c.add(`row seq ${row.seq}: signed previous_hash differs`, `${at}.previous_hash`);
    if (sp.key_version !== row.key_version) c.add(`row seq ${row.seq}: signed key_version is ${String(sp.key_version)}`, `${at}.key_version`);
    if (sp.tenant_id !== p.tenant_id) c.add(`row seq ${row.seq}: tenant ${String(sp.tenant_id)} is not ${p.tenant_id}`, `${at}.signed_payload`);
  });
  const redacted = suffix.length - full;
  const verified = `${full} rows verify under key_version ${[...versions].join(', ') || '-'}`;
  return checkResult('suffix_hmac', c, redacted === 0 ? verified
    : `${verified}; ${redacted} redacted rows of other principals are checked by link only (no payload to check their HMAC)`);
}

/**
 * 8. suffix_continuity: chain_hash recomputed, previous_hash links, seq consecutive, ids increasing,
 * over full and redacted rows alike (the link `H(JCS({id, previous_hash, signature}))` needs no
 * payload). A redacted row before a full row is pinned by that row's signed previous_hash; the
 * redacted rows after the last full row are named in the detail, as nothing later pins them.
 */
export function checkSuffixContinuity({ bundle, hash }: CheckInput): CheckResult {
  const suffix = bundle.proof.audit_chain.suffix;
  const c = new Collector('CHAIN_CONTINUITY_ERROR');
  suffix.forEach((row, i) => {
    const at = `proof.audit_chain.suffix[${i}]`;
    if (!safeEqual(chainHash(row.id, row.previous_hash, row.signature, hash), row.chain_hash)) c.add(`row seq ${row.seq}: chain_hash is not H(JCS({id, previous_hash, signature}))`, `${at}.chain_hash`);
    const prev = suffix[i - 1];
    if (prev) {
      if (row.previous_hash !== prev.chain_hash) c.add(`row seq ${row.seq}: previous_hash does not link to row seq ${prev.seq}`, `${at}.previous_hash`);
      if (row.seq !== prev.seq + 1) c.add(`row seq ${row.seq} follows seq ${prev.seq}: gap or reorder`, `${at}.seq`);
      if (row.id <= prev.id) c.add(`row id ${row.id} does not increase after ${prev.id}`, `${at}.id`);
    }
  });
  const last = suffix[suffix.length - 1];
  const redacted = suffix.filter(isRedactedRow).length;
  const tail = redactedTail(suffix);
  let detail = suffix.length ? `seq ${suffix[0]!.seq}..${last!.seq} linked` : 'empty suffix';
  if (redacted > 0) {
    detail += ` (${redacted} redacted rows linked by id, previous_hash and signature`
      + (tail > 0 ? `; the last ${tail} follow the last full row, so no signed row in this export pins them)` : ')');
  }
  return checkResult('suffix_continuity', c, detail);
}
