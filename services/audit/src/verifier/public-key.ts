/**
 * Verification without the secret (issue 22 item 4; docs/receipt-format-v2.md). Pure and Node-free:
 * the host injects an Ed25519 verify function (node:crypto in `scripts/svc-verify`, WebCrypto or
 * @noble/ed25519 in the renderer), which may be synchronous or return a promise.
 *
 * It runs the keyless checks of the HMAC pipeline unchanged (structure, binding, leaves, Merkle
 * root, anchor, suffix continuity: the same functions), the HMAC checks only when keys are given
 * (else reported as not checked), and two more:
 *  - `envelope_signature`: Ed25519 over UTF-8 `JCS({payload, audit_log_id, audit_seq})` under the
 *    pinned key whose `kid` the envelope's `public_signature` names;
 *  - `checkpoint`: the proof's C2SP signed-note checkpoint is signed by a pinned key (note key hash
 *    over the origin as key name), its origin ends with the envelope's tenant, its size is at or after
 *    the anchor's seq, and its hash equals the `chain_hash` of the suffix row at that seq.
 * `ok` holds only when every check that could be made holds and at least one envelope signature
 * (Ed25519 or HMAC) was checked.
 */
import { jcs } from '../../../shared/identity/jcs.js';
import { CHECK_TITLES, checkResult, Collector, notChecked, type CheckInput } from './check-kit.js';
import { checkAnchor, checkSuffixContinuity, checkSuffixHmac } from './checks-chain.js';
import { checkBinding, checkEnvelopeHmac, checkLeaves, checkMerkleRoot, checkStructure } from './checks-envelope.js';
import { type HashProvider, pureHashProvider, toHex, utf8 } from './hash.js';
import { checkJsonValue, verifierLimits, type VerifierLimits } from './limits.js';
import { base64Decode, base64UrlEncode, NoteError, noteKeyHash, parseCheckpointText, parseNote, checkpointExtension, type Checkpoint } from './note.js';
import { normaliseInput, refusedReport, suffixCoverage, type VerifyOptions } from './verify.js';
import { VerificationError, type CheckResult, type EnvelopeRecord, type ReceiptBundle, type VerificationReport } from './types.js';

/** Verify an Ed25519 signature: true when `signature` is valid for `message` under the raw 32-byte `publicKey`. */
export type Ed25519Verify = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean | Promise<boolean>;

/** A public key the reviewer pinned: the JWK's fields plus the raw key bytes. */
export interface PinnedKey {
  kid: string;
  /** base64url of the raw 32-byte key. */
  x: string;
  raw: Uint8Array;
  created_at?: string;
  retired_at?: string;
}

/** Pinned keys by `kid`. */
export type PublicKeyRing = ReadonlyMap<string, PinnedKey>;

/** RFC 7638 thumbprint of an Ed25519 JWK (SHA-256 of `{"crv":"Ed25519","kty":"OKP","x":...}`, base64url). */
export function jwkThumbprint(x: string, hp: HashProvider = pureHashProvider): string {
  return base64UrlEncode(hp.sha256(utf8(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x }))));
}

function malformed(msg: string): never {
  throw new VerificationError('MALFORMED', msg);
}

/**
 * Pinned keys from JSON: one JWK, an array of JWKs, or a key set `{keys: [...]}` (the answer of
 * `GET /v1/receipts/keys`). Each must be `kty` OKP, `crv` Ed25519 with a 32-byte `x`; a `kid`, when
 * present, must equal the RFC 7638 thumbprint (otherwise the thumbprint is the kid).
 * @throws VerificationError `MALFORMED` on anything else or on no key at all.
 */
export function parsePublicKeys(json: unknown, hp: HashProvider = pureHashProvider): Map<string, PinnedKey> {
  const list: unknown[] = Array.isArray(json) ? json
    : typeof json === 'object' && json !== null && Array.isArray((json as { keys?: unknown }).keys) ? (json as { keys: unknown[] }).keys
      : [json];
  const out = new Map<string, PinnedKey>();
  list.forEach((k, i) => {
    if (typeof k !== 'object' || k === null) malformed(`key ${i}: expected a JWK object`);
    const j = k as Record<string, unknown>;
    if (j.kty !== 'OKP' || j.crv !== 'Ed25519') malformed(`key ${i}: expected kty OKP and crv Ed25519`);
    if (typeof j.x !== 'string') malformed(`key ${i}: x missing`);
    let raw: Uint8Array;
    try { raw = base64Decode(j.x, true); } catch { malformed(`key ${i}: x is not base64url`); }
    if (raw.length !== 32) malformed(`key ${i}: x is not a 32-byte Ed25519 key`);
    const kid = jwkThumbprint(j.x, hp);
    if (j.kid !== undefined && j.kid !== kid) malformed(`key ${i}: kid ${String(j.kid)} is not the key's RFC 7638 thumbprint ${kid}`);
    if ('d' in j) malformed(`key ${i}: this is a private key; give only the public JWK`);
    out.set(kid, {
      kid, x: j.x, raw,
      ...(typeof j.created_at === 'string' ? { created_at: j.created_at } : {}),
      ...(typeof j.retired_at === 'string' ? { retired_at: j.retired_at } : {}),
    });
  });
  if (out.size === 0) malformed('no public key given');
  return out;
}

/** The text an envelope's public signature covers: `JCS({payload, audit_log_id, audit_seq})`. */
export function envelopeSigningText(env: Pick<EnvelopeRecord, 'payload' | 'audit_log_id' | 'audit_seq'>): string {
  return jcs({ payload: env.payload, audit_log_id: env.audit_log_id, audit_seq: env.audit_seq });
}

/** Options of public-key verification; `keys` (HMAC secrets) are optional here. */
export interface PublicVerifyOptions {
  publicKeys: PublicKeyRing;
  ed25519: Ed25519Verify;
  /** Audit signing keys by key_version: with them the HMAC checks run too. */
  keys?: VerifyOptions['keys'];
  hash?: HashProvider;
  limits?: Partial<VerifierLimits>;
}

/** What the checkpoint says, when one was read. */
export interface CheckpointSummary { origin: string; size: number; timestamp: string | null; kid: string | null }

/** The report of public-key verification: which checks were made and which could not be. */
export interface PublicVerificationReport extends VerificationReport {
  mode: 'public';
  checked: string[];
  not_checked: string[];
  checkpoint: CheckpointSummary | null;
}

interface SigJob { key: Uint8Array; message: Uint8Array; sig: Uint8Array }

interface Plan { jobs: SigJob[]; finish(results: readonly boolean[]): PublicVerificationReport }

function keyMap(keys: VerifyOptions['keys'] | undefined): Map<string, string> {
  if (!keys) return new Map();
  return keys instanceof Map ? new Map(keys) : new Map(Object.entries(keys as Record<string, string>));
}

/** Plan the envelope signature check: a job, or a finished result. */
function envelopePlan(bundle: ReceiptBundle, ring: PublicKeyRing): { job: SigJob; kid: string } | CheckResult {
  const env = bundle.proof.envelope;
  const ps = env.public_signature;
  if (ps === undefined) return notChecked('envelope_signature', `format ${bundle.proof.format ?? '1'} carries no public signature`);
  if (ps === null) return notChecked('envelope_signature', 'sealed before receipts carried public signatures (public_signature is null)');
  const c = new Collector('PUBLIC_SIGNATURE_ERROR');
  const key = ring.get(ps.kid);
  if (!key) {
    c.add(`no pinned public key has kid ${ps.kid}`, 'envelope.public_signature.kid', 'UNKNOWN_KID');
    return checkResult('envelope_signature', c, '');
  }
  return { job: { key: key.raw, message: utf8(envelopeSigningText(env)), sig: base64Decode(ps.sig, true) }, kid: ps.kid };
}

interface CheckpointPlan { job: SigJob; cp: Checkpoint; kid: string; problems: Collector }

/** Plan the checkpoint check: parse, find a pinned key's signature line, compare with the suffix. */
function checkpointPlan(bundle: ReceiptBundle, ring: PublicKeyRing, hp: HashProvider): CheckpointPlan | CheckResult {
  const note = bundle.proof.checkpoint;
  if (note === undefined) return notChecked('checkpoint', `format ${bundle.proof.format ?? '1'} carries no checkpoint`);
  if (note === null) return notChecked('checkpoint', 'no checkpoint had been signed at export; fetch GET /v1/receipts/checkpoints/latest and re-export');
  const c = new Collector('CHECKPOINT_ERROR');
  let cp: Checkpoint;
  let sigs;
  try {
    const n = parseNote(note);
    sigs = n.sigs;
    cp = parseCheckpointText(n.text);
  } catch (err) {
    c.add(`checkpoint is not a signed note: ${err instanceof NoteError ? err.message : String(err)}`, 'proof.checkpoint');
    return checkResult('checkpoint', c, '');
  }
  let found: { key: PinnedKey; sig: Uint8Array } | null = null;
  for (const s of sigs) {
    if (s.name !== cp.origin) continue;
    for (const k of ring.values()) if (noteKeyHash(s.name, k.raw, hp) === s.keyHash) { found = { key: k, sig: s.sig }; break; }
    if (found) break;
  }
  if (!found) {
    c.add(`no signature line by a pinned key under the origin ${cp.origin}`, 'proof.checkpoint', 'UNKNOWN_KID');
    return checkResult('checkpoint', c, '');
  }
  const env = bundle.proof.envelope;
  if (!cp.origin.endsWith(`/${env.payload.tenant_id}`)) c.add(`checkpoint origin ${cp.origin} does not name tenant ${env.payload.tenant_id}`, 'proof.checkpoint');
  if (cp.size < env.audit_seq) c.add(`checkpoint size ${cp.size} is before the anchor seq ${env.audit_seq}`, 'proof.checkpoint');
  else {
    const row = bundle.proof.audit_chain.suffix.find((r) => r.seq === cp.size);
    if (!row) c.add(`checkpoint size ${cp.size} is beyond the exported suffix`, 'proof.checkpoint');
    else if (toHex(cp.hash) !== row.chain_hash) c.add(`checkpoint hash differs from the chain_hash of suffix row seq ${cp.size}`, 'proof.checkpoint');
  }
  const text = note.slice(0, note.lastIndexOf('\n\n') + 1);
  return { job: { key: found.key.raw, message: utf8(text), sig: found.sig }, cp, kid: found.key.kid, problems: c };
}

function plan(bundle: ReceiptBundle, opts: PublicVerifyOptions): Plan {
  const hash = opts.hash ?? pureHashProvider;
  const keys = keyMap(opts.keys);
  const input: CheckInput = { bundle, keys, hash, limits: verifierLimits(opts.limits) };
  const haveSecret = keys.size > 0;
  const secretWhy = 'needs the audit signing key (HMAC secret), which a reviewer does not hold';
  const jobs: SigJob[] = [];
  const env = envelopePlan(bundle, opts.publicKeys);
  const envIdx = 'job' in env ? jobs.push(env.job) - 1 : -1;
  const cpp = checkpointPlan(bundle, opts.publicKeys, hash);
  const cpIdx = 'job' in cpp ? jobs.push(cpp.job) - 1 : -1;
  const fixed = {
    structure: checkStructure(input), binding: checkBinding(input), leaves: checkLeaves(input), merkle_root: checkMerkleRoot(input),
    envelope_hmac: haveSecret ? checkEnvelopeHmac(input) : notChecked('envelope_hmac', secretWhy),
    anchor: checkAnchor(input),
    suffix_hmac: haveSecret ? checkSuffixHmac(input) : notChecked('suffix_hmac', secretWhy),
    suffix_continuity: checkSuffixContinuity(input),
  };
  return {
    jobs,
    finish(results) {
      let envelopeCheck: CheckResult;
      if ('job' in env) {
        const c = new Collector('PUBLIC_SIGNATURE_ERROR');
        if (!results[envIdx]) c.add(`envelope signature does not verify under kid ${env.kid}`, 'envelope.public_signature.sig');
        envelopeCheck = checkResult('envelope_signature', c, `Ed25519 under kid ${env.kid}`);
      } else envelopeCheck = env;
      let cpCheck: CheckResult;
      let summary: CheckpointSummary | null = null;
      if ('job' in cpp) {
        if (!results[cpIdx]) cpp.problems.add(`checkpoint signature does not verify under kid ${cpp.kid}`, 'proof.checkpoint');
        summary = { origin: cpp.cp.origin, size: cpp.cp.size, timestamp: checkpointExtension(cpp.cp, 'timestamp'), kid: cpp.kid };
        cpCheck = checkResult('checkpoint', cpp.problems, `${cpp.cp.origin} at seq ${cpp.cp.size} signed under kid ${cpp.kid}; its hash is suffix row ${cpp.cp.size}'s chain_hash`);
      } else cpCheck = cpp;
      const checks = [
        fixed.structure, fixed.binding, fixed.leaves, fixed.merkle_root, envelopeCheck, fixed.envelope_hmac, fixed.anchor,
        fixed.suffix_hmac, fixed.suffix_continuity, cpCheck,
      ];
      const made = checks.filter((c) => !c.skipped);
      const signed = (envelopeCheck.ok && !envelopeCheck.skipped) || (fixed.envelope_hmac.ok && !fixed.envelope_hmac.skipped);
      return {
        mode: 'public', ok: made.every((c) => c.ok) && signed, checks, turn_id: bundle.proof.envelope.payload.turn_id, suffix: suffixCoverage(bundle),
        checked: made.map((c) => c.id), not_checked: checks.filter((c) => c.skipped).map((c) => c.id), checkpoint: summary,
      };
    },
  };
}

/** Verify a parsed bundle with pinned public keys (asynchronous Ed25519, e.g. WebCrypto). Never throws on bad input. */
export async function verifyBundlePublic(bundle: ReceiptBundle, opts: PublicVerifyOptions): Promise<PublicVerificationReport> {
  const p = plan(bundle, opts);
  const results = await Promise.all(p.jobs.map(async (j) => {
    try { return await opts.ed25519(j.key, j.message, j.sig); } catch { return false; }
  }));
  return p.finish(results);
}

/**
 * The same with a synchronous Ed25519 (node:crypto).
 * @throws TypeError when `opts.ed25519` returns a promise.
 */
export function verifyBundlePublicSync(bundle: ReceiptBundle, opts: PublicVerifyOptions): PublicVerificationReport {
  const p = plan(bundle, opts);
  return p.finish(p.jobs.map((j) => {
    let r: boolean | Promise<boolean>;
    try { r = opts.ed25519(j.key, j.message, j.sig); } catch { return false; }
    if (typeof r !== 'boolean') throw new TypeError('verifyBundlePublicSync needs a synchronous ed25519 verify');
    return r;
  }));
}

/** The public-mode verdict on input refused before the checks (see `refusedReport`). */
export function refusedPublicReport(error: VerificationError): PublicVerificationReport {
  const r = refusedReport(error);
  const checks = [...r.checks, { ...notRunLike('envelope_signature') }, { ...notRunLike('checkpoint') }];
  return { ...r, checks, mode: 'public', checked: [], not_checked: [], checkpoint: null };
}

function notRunLike(id: 'envelope_signature' | 'checkpoint'): CheckResult {
  return { id, title: CHECK_TITLES[id], ok: false, detail: 'not run: input refused', errors: [new VerificationError('MALFORMED', 'not run: input refused')] };
}

/**
 * Verify raw JSON input (bundle, or detail + proof) with pinned public keys: measured, parsed, then
 * checked as `verifyBundlePublic`. Never throws on bad input.
 */
export async function verifyReceiptJsonPublic(input: { bundle: unknown } | { detail: unknown; proof: unknown }, opts: PublicVerifyOptions): Promise<PublicVerificationReport> {
  const deep = checkJsonValue('bundle' in input ? input.bundle : [input.detail, input.proof], verifierLimits(opts.limits));
  if (deep) return refusedPublicReport(deep);
  let bundle: ReceiptBundle;
  try { bundle = normaliseInput(input); } catch (err) {
    return refusedPublicReport(err instanceof VerificationError ? err : new VerificationError('MALFORMED', String(err)));
  }
  return verifyBundlePublic(bundle, opts);
}
