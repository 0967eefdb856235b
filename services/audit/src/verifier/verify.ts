/**
 * The receipt verification pipeline (DESIGN.md "Receipt format v1", last bullet; spec "Offline
 * verification"). Fixed order, pure and synchronous, keys injected; one function per check
 * (`checks-envelope.ts`, `checks-chain.ts`):
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
import { CHECK_TITLES, notRun, type Check } from './check-kit.js';
import { checkAnchor, checkSuffixContinuity, checkSuffixHmac } from './checks-chain.js';
import { checkBinding, checkEnvelopeHmac, checkLeaves, checkMerkleRoot, checkStructure } from './checks-envelope.js';
import { type HashProvider, pureHashProvider } from './hash.js';
import { parseBundle, parseProofExport, parseReceiptDetail } from './parse.js';
import { VerificationError, type CheckId, type CheckResult, type ReceiptBundle, type VerificationReport } from './types.js';

/** Trust material and options. `keys` maps key_version label -> AUDIT_SIGNING_KEY text. */
export interface VerifyOptions {
  keys: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
  /** Hash implementation; default pure TypeScript. */
  hash?: HashProvider;
}

/** The fixed pipeline: every check, in the order it runs and reports. */
export const PIPELINE: ReadonlyArray<{ id: CheckId; run: Check }> = [
  { id: 'structure', run: checkStructure },
  { id: 'binding', run: checkBinding },
  { id: 'leaves', run: checkLeaves },
  { id: 'merkle_root', run: checkMerkleRoot },
  { id: 'envelope_hmac', run: checkEnvelopeHmac },
  { id: 'anchor', run: checkAnchor },
  { id: 'suffix_hmac', run: checkSuffixHmac },
  { id: 'suffix_continuity', run: checkSuffixContinuity },
];

function keyMap(keys: VerifyOptions['keys']): Map<string, string> {
  return keys instanceof Map ? new Map(keys) : new Map(Object.entries(keys as Record<string, string>));
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
    const checks: CheckResult[] = [{ id: 'structure', title: CHECK_TITLES.structure, ok: false, detail: e.message, errors: [e] }];
    for (const step of PIPELINE.slice(1)) checks.push(notRun(step.id, 'input did not parse'));
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
  const input = { bundle, keys: keyMap(opts.keys), hash: opts.hash ?? pureHashProvider };
  const checks = PIPELINE.map((step) => step.run(input));
  return { ok: checks.every((x) => x.ok), checks, turn_id: bundle.proof.envelope.payload.turn_id };
}
