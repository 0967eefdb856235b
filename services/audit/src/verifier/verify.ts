/**
 * The receipt verification pipeline (DESIGN.md "Receipt format v1", last bullet; spec "Offline
 * verification"). Fixed order, pure and synchronous, keys injected:
 *
 *  1. structure          the input parses into a bundle (strict shapes)
 *  2. binding            receipt, detail and proof name the same turn and carry the same envelope
 *  3. leaves             each event's leaf `H(0x00 || JCS(event))`, ids and order match the envelope
 *  4. merkle_root        RFC 6962 root over leaf_hashes equals merkle_root
 *  5. envelope_hmac      HMAC(JCS(payload)) under the key of the envelope's key_version
 *  6. anchor             suffix[0] is the `turn.envelope.sealed` row committing to this envelope
 *  7. suffix_hmac        every suffix row's HMAC under its key_version; payload fields agree
 *  8. suffix_continuity  chain_hash recomputed, previous_hash links, seq consecutive
 *
 * The result holds only against the exported proof, the exported suffix and the supplied keys.
 */
import { jcs } from '../../../shared/identity/jcs.js';
import {
  ANCHOR_ACTION, ANCHOR_RESOURCE_TYPE, ENVELOPE_DETAIL_TYPE, SIGNED_ROW_KEYS,
  anchorDetailOf, chainHash, compareEvents, envelopeSignature, hmacHex, leafHash,
} from './format.js';
import { type HashProvider, pureHashProvider, safeEqual } from './hash.js';
import { merkleRootHex } from './merkle.js';
import { parseBundle, parseProofExport, parseReceiptDetail } from './parse.js';
import {
  VerificationError, type CheckId, type CheckResult, type ReceiptBundle, type VerificationErrorCode, type VerificationReport,
} from './types.js';

/** Trust material and options. `keys` maps key_version label -> AUDIT_SIGNING_KEY text. */
export interface VerifyOptions {
  keys: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
  /** Hash implementation; default pure TypeScript. */
  hash?: HashProvider;
}

const TITLES: Record<CheckId, string> = {
  structure: 'bundle structure',
  binding: 'receipt, detail and proof bind to one envelope',
  leaves: 'event leaves match the envelope',
  merkle_root: 'Merkle root over the leaves',
  envelope_hmac: 'envelope HMAC',
  anchor: 'anchor row commits to the envelope',
  suffix_hmac: 'audit row HMACs of the chain suffix',
  suffix_continuity: 'chain suffix continuity',
};

const ORDER: CheckId[] = ['structure', 'binding', 'leaves', 'merkle_root', 'envelope_hmac', 'anchor', 'suffix_hmac', 'suffix_continuity'];

function keyMap(keys: VerifyOptions['keys']): Map<string, string> {
  return keys instanceof Map ? new Map(keys) : new Map(Object.entries(keys as Record<string, string>));
}

class Collector {
  readonly errors: VerificationError[] = [];
  constructor(private readonly code: VerificationErrorCode) {}
  add(message: string, path?: string, code: VerificationErrorCode = this.code): void {
    if (this.errors.length < 50) this.errors.push(new VerificationError(code, message, path));
  }
}

function result(id: CheckId, c: Collector, okDetail: string): CheckResult {
  const ok = c.errors.length === 0;
  return { id, title: TITLES[id], ok, detail: ok ? okDetail : c.errors[0]!.message + (c.errors.length > 1 ? ` (+${c.errors.length - 1} more)` : ''), errors: c.errors };
}

function notRun(id: CheckId, why: string): CheckResult {
  return { id, title: TITLES[id], ok: false, detail: `not run: ${why}`, errors: [new VerificationError('MALFORMED', `not run: ${why}`)] };
}

/**
 * Normalise raw JSON input: either a bundle, or a detail and a proof given separately (the
 * `--receipt` / `--proof` files). Throws `VerificationError` (`MALFORMED`) on bad shapes.
 */
export function normaliseInput(input: { bundle: unknown } | { detail: unknown; proof: unknown }): ReceiptBundle {
  if ('bundle' in input) return parseBundle(input.bundle);
  return { detail: parseReceiptDetail(input.detail, 'detail'), proof: parseProofExport(input.proof, 'proof') };
}

/** Verify raw JSON input (bundle or detail + proof); a parse failure becomes a failed report. */
export function verifyReceiptJson(input: { bundle: unknown } | { detail: unknown; proof: unknown }, opts: VerifyOptions): VerificationReport {
  let bundle: ReceiptBundle;
  try {
    bundle = normaliseInput(input);
  } catch (err) {
    const e = err instanceof VerificationError ? err : new VerificationError('MALFORMED', String(err));
    const checks: CheckResult[] = [{ id: 'structure', title: TITLES.structure, ok: false, detail: e.message, errors: [e] }];
    for (const id of ORDER.slice(1)) checks.push(notRun(id, 'input did not parse'));
    return { ok: false, checks, turn_id: null };
  }
  return verifyBundle(bundle, opts);
}

/**
 * Run the eight checks over a parsed bundle. Every check runs (a failed one does not hide the
 * others), so a reviewer sees all that is wrong at once.
 * @returns `{ok, checks, turn_id}`; `ok` only when every check holds.
 */
export function verifyBundle(bundle: ReceiptBundle, opts: VerifyOptions): VerificationReport {
  const hp = opts.hash ?? pureHashProvider;
  const keys = keyMap(opts.keys);
  const { detail, proof } = bundle;
  const env = proof.envelope;
  const p = env.payload;
  const suffix = proof.audit_chain.suffix;
  const checks: CheckResult[] = [
    { id: 'structure', title: TITLES.structure, ok: true, detail: `${detail.events.length} events, ${suffix.length} suffix rows`, errors: [] },
  ];

  // 2. binding
  {
    const c = new Collector('BINDING_ERROR');
    if (jcs(detail.envelope) !== jcs(env)) c.add('detail.envelope differs from proof.envelope', 'detail.envelope');
    if (proof.receipt.turn_id !== p.turn_id) c.add(`proof.receipt.turn_id ${proof.receipt.turn_id} is not the envelope's turn ${p.turn_id}`, 'proof.receipt.turn_id');
    if (detail.receipt.turn_id !== p.turn_id) c.add(`detail.receipt.turn_id ${detail.receipt.turn_id} is not the envelope's turn ${p.turn_id}`, 'detail.receipt.turn_id');
    if (p.event_ids.length !== p.event_count || p.leaf_hashes.length !== p.event_count) {
      c.add(`event_count ${p.event_count} disagrees with ${p.event_ids.length} event_ids / ${p.leaf_hashes.length} leaf_hashes`, 'envelope.payload.event_count');
    }
    checks.push(result('binding', c, `turn ${p.turn_id}`));
  }

  // 3. leaves
  {
    const c = new Collector('LEAF_ERROR');
    const ev = detail.events;
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
      const leaf = leafHash(e, hp);
      if (p.leaf_hashes[i] === undefined || !safeEqual(leaf, p.leaf_hashes[i]!)) c.add(`leaf of event ${e.event_id} does not match leaf_hashes[${i}]`, at);
    }
    checks.push(result('leaves', c, `${ev.length} leaves recomputed from events`));
  }

  // 4. merkle_root
  {
    const c = new Collector('MERKLE_ROOT_ERROR');
    const root = merkleRootHex(p.leaf_hashes, hp);
    if (!safeEqual(root, p.merkle_root)) c.add(`root over leaf_hashes is ${root}, envelope says ${p.merkle_root}`, 'envelope.payload.merkle_root');
    checks.push(result('merkle_root', c, `root ${p.merkle_root.slice(0, 16)}... over ${p.leaf_hashes.length} leaves`));
  }

  // 5. envelope_hmac
  {
    const c = new Collector('ENVELOPE_SIGNATURE_ERROR');
    const key = keys.get(env.key_version);
    if (key === undefined) c.add(`no key supplied for key_version ${env.key_version}`, 'envelope.key_version', 'UNKNOWN_KEY_VERSION');
    else if (!safeEqual(envelopeSignature(p, key, hp), env.signature)) c.add(`envelope signature does not verify under key_version ${env.key_version}`, 'envelope.signature');
    checks.push(result('envelope_hmac', c, `signed under key_version ${env.key_version}`));
  }

  // 6. anchor
  {
    const c = new Collector('ANCHOR_ERROR');
    const row = suffix[0];
    if (!row) c.add('the proof has no chain suffix', 'proof.audit_chain.suffix');
    else {
      if (row.id !== env.audit_log_id) c.add(`suffix[0].id ${row.id} is not audit_log_id ${env.audit_log_id}`, 'envelope.audit_log_id');
      if (row.seq !== env.audit_seq) c.add(`suffix[0].seq ${row.seq} is not audit_seq ${env.audit_seq}`, 'envelope.audit_seq');
      if (row.previous_hash !== env.audit_previous_hash) c.add('suffix[0].previous_hash differs from audit_previous_hash', 'envelope.audit_previous_hash');
      if (row.signature !== env.audit_signature) c.add('suffix[0].signature differs from audit_signature', 'envelope.audit_signature');
      if (row.chain_hash !== env.audit_chain_hash) c.add('suffix[0].chain_hash differs from audit_chain_hash', 'envelope.audit_chain_hash');
      let sp: Record<string, unknown> | null = null;
      try { sp = JSON.parse(row.signed_payload) as Record<string, unknown>; } catch { c.add('anchor signed_payload is not JSON', 'proof.audit_chain.suffix[0].signed_payload'); }
      if (sp && typeof sp === 'object') {
        if (sp.action !== ANCHOR_ACTION) c.add(`anchor action is ${String(sp.action)}`, 'suffix[0].signed_payload.action');
        if (sp.resource_type !== ANCHOR_RESOURCE_TYPE) c.add(`anchor resource_type is ${String(sp.resource_type)}`, 'suffix[0].signed_payload.resource_type');
        if (sp.resource_id !== p.turn_id) c.add(`anchor resource_id ${String(sp.resource_id)} is not turn ${p.turn_id}`, 'suffix[0].signed_payload.resource_id');
        if (sp.detail_type !== ENVELOPE_DETAIL_TYPE) c.add(`anchor detail_type is ${String(sp.detail_type)}`, 'suffix[0].signed_payload.detail_type');
        if (sp.tenant_id !== p.tenant_id) c.add(`anchor tenant ${String(sp.tenant_id)} is not ${p.tenant_id}`, 'suffix[0].signed_payload.tenant_id');
        let detailText = '';
        try { detailText = jcs(sp.detail ?? null); } catch { /* reported below */ }
        if (detailText !== jcs(anchorDetailOf(p, env.signature, hp))) c.add('anchor detail does not commit to this envelope (hash, signature, root or status differ)', 'suffix[0].signed_payload.detail');
      }
    }
    checks.push(result('anchor', c, `row id ${env.audit_log_id} seq ${env.audit_seq} commits to the envelope`));
  }

  // 7. suffix_hmac
  {
    const c = new Collector('ROW_SIGNATURE_ERROR');
    const versions = new Set<string>();
    suffix.forEach((row, i) => {
      const at = `proof.audit_chain.suffix[${i}]`;
      versions.add(row.key_version);
      const key = keys.get(row.key_version);
      if (key === undefined) c.add(`row seq ${row.seq}: no key supplied for key_version ${row.key_version}`, `${at}.key_version`, 'UNKNOWN_KEY_VERSION');
      else if (!safeEqual(hmacHex(key, row.signed_payload, hp), row.signature)) c.add(`row seq ${row.seq}: signature does not verify under key_version ${row.key_version}`, `${at}.signature`);
      let sp: Record<string, unknown>;
      try {
        sp = JSON.parse(row.signed_payload) as Record<string, unknown>;
        if (typeof sp !== 'object' || sp === null || Array.isArray(sp)) throw new Error('not an object');
      } catch { c.add(`row seq ${row.seq}: signed_payload is not a JSON object`, `${at}.signed_payload`); return; }
      const keysOk = Object.keys(sp).length === SIGNED_ROW_KEYS.length && SIGNED_ROW_KEYS.every((k) => Object.prototype.hasOwnProperty.call(sp, k));
      if (!keysOk) c.add(`row seq ${row.seq}: signed_payload does not hold exactly the signed fields`, `${at}.signed_payload`);
      if (jcs(sp) !== row.signed_payload) c.add(`row seq ${row.seq}: signed_payload is not canonical JSON`, `${at}.signed_payload`);
      if (sp.seq !== row.seq) c.add(`row seq ${row.seq}: signed seq is ${String(sp.seq)}`, `${at}.seq`);
      if (sp.previous_hash !== row.previous_hash) c.add(`row seq ${row.seq}: signed previous_hash differs`, `${at}.previous_hash`);
      if (sp.key_version !== row.key_version) c.add(`row seq ${row.seq}: signed key_version is ${String(sp.key_version)}`, `${at}.key_version`);
      if (sp.tenant_id !== p.tenant_id) c.add(`row seq ${row.seq}: tenant ${String(sp.tenant_id)} is not ${p.tenant_id}`, `${at}.signed_payload`);
    });
    checks.push(result('suffix_hmac', c, `${suffix.length} rows verify under key_version ${[...versions].join(', ') || '-'}`));
  }

  // 8. suffix_continuity
  {
    const c = new Collector('CHAIN_CONTINUITY_ERROR');
    suffix.forEach((row, i) => {
      const at = `proof.audit_chain.suffix[${i}]`;
      if (!safeEqual(chainHash(row.id, row.previous_hash, row.signature, hp), row.chain_hash)) c.add(`row seq ${row.seq}: chain_hash is not H(JCS({id, previous_hash, signature}))`, `${at}.chain_hash`);
      const prev = suffix[i - 1];
      if (prev) {
        if (row.previous_hash !== prev.chain_hash) c.add(`row seq ${row.seq}: previous_hash does not link to row seq ${prev.seq}`, `${at}.previous_hash`);
        if (row.seq !== prev.seq + 1) c.add(`row seq ${row.seq} follows seq ${prev.seq}: gap or reorder`, `${at}.seq`);
        if (row.id <= prev.id) c.add(`row id ${row.id} does not increase after ${prev.id}`, `${at}.id`);
      }
    });
    const last = suffix[suffix.length - 1];
    checks.push(result('suffix_continuity', c, suffix.length ? `seq ${suffix[0]!.seq}..${last!.seq} linked` : 'empty suffix'));
  }

  return { ok: checks.every((x) => x.ok), checks, turn_id: p.turn_id };
}
