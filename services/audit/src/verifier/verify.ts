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
 *  6. anchor             suffix[0] is the `turn.envelope.sealed` row, in full, committing to this envelope
 *  7. suffix_hmac        every full suffix row's HMAC under its key_version; payload fields agree
 *  8. suffix_continuity  chain_hash recomputed, previous_hash links, seq consecutive (redacted rows too)
 *
 * Before any of it, the input is measured iteratively (`limits.ts`): over-deep input is refused
 * with a verdict (`INPUT_TOO_DEEP`), never walked recursively (issue 11 item 4). The result holds
 * only against the exported proof, the exported suffix and the supplied keys; in a v1.1 proof the
 * redacted rows are checked by link only (`report.suffix` counts them; docs/receipts.md).
 */
import { CHECK_TITLES, notRun, type Check } from './check-kit.js';
import { checkAnchor, checkSuffixContinuity, checkSuffixHmac, redactedTail } from './checks-chain.js';
import { checkBinding, checkEnvelopeHmac, checkLeaves, checkMerkleRoot, checkStructure } from './checks-envelope.js';
import { type HashProvider, pureHashProvider } from './hash.js';
import { checkJsonValue, verifierLimits, type VerifierLimits } from './limits.js';
import { parseBundle, parseProofExport, parseReceiptDetail } from './parse.js';
import {
  isRedactedRow, VerificationError, type CheckId, type CheckResult, type ReceiptBundle, type SuffixCoverage, type VerificationReport,
} from './types.js';

/** Trust material and options. `keys` maps key_version label -> AUDIT_SIGNING_KEY text. */
export interface VerifyOptions {
  keys: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
  /** Hash implementation; default pure TypeScript. */
  hash?: HashProvider;
  /** Input bounds; default `VERIFIER_LIMITS` (256 levels, 256 MiB). */
  limits?: Partial<VerifierLimits>;
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

/**
 * The verdict on input refused before the checks: `structure` fails with `error` (its code:
 * `MALFORMED`, `INPUT_TOO_DEEP`, `INPUT_TOO_LARGE`), every other check is reported as not run.
 */
export function refusedReport(error: VerificationError): VerificationReport {
  const checks: CheckResult[] = [{ id: 'structure', title: CHECK_TITLES.structure, ok: false, detail: error.message, errors: [error] }];
  const why = error.code === 'MALFORMED' ? 'input did not parse' : 'input refused';
  for (const step of PIPELINE.slice(1)) checks.push(notRun(step.id, why));
  return { ok: false, checks, turn_id: null, suffix: null };
}

/**
 * Verify raw JSON input (bundle or detail + proof): its depth is measured iteratively first (over
 * `limits.maxDepth`: refused, `INPUT_TOO_DEEP`), then it is parsed (a parse failure is a failed
 * report, `MALFORMED`), then checked. Never throws on bad input.
 */
export function verifyReceiptJson(input: { bundle: unknown } | { detail: unknown; proof: unknown }, opts: VerifyOptions): VerificationReport {
  const limits = verifierLimits(opts.limits);
  const deep = checkJsonValue('bundle' in input ? input.bundle : [input.detail, input.proof], limits);
  if (deep) return refusedReport(deep);
  let bundle: ReceiptBundle;
  try {
    bundle = normaliseInput(input);
  } catch (err) {
    return refusedReport(err instanceof VerificationError ? err : new VerificationError('MALFORMED', String(err)));
  }
  return verifyBundle(bundle, opts);
}

/** How many suffix rows of `bundle` are in full and redacted, and the proof's format (`1` when none). */
export function suffixCoverage(bundle: ReceiptBundle): SuffixCoverage {
  const suffix = bundle.proof.audit_chain.suffix;
  const redacted = suffix.filter(isRedactedRow).length;
  return {
    format: bundle.proof.format ?? '1', rows: suffix.length, full: suffix.length - redacted, redacted, redacted_tail: redactedTail(suffix),
  };
}

/**
 * Run the eight checks over a parsed bundle. Every check runs (a failed one does not hide the
 * others), so a reviewer sees all that is wrong at once. Signed payloads past `limits.maxDepth`
 * fail their checks with `INPUT_TOO_DEEP` instead of being canonicalised.
 * @returns `{ok, checks, turn_id, suffix}`; `ok` only when every check holds.
 */
export function verifyBundle(bundle: ReceiptBundle, opts: VerifyOptions): VerificationReport {
  const input = { bundle, keys: keyMap(opts.keys), hash: opts.hash ?? pureHashProvider, limits: verifierLimits(opts.limits) };
  const checks = PIPELINE.map((step) => step.run(input));
  return { ok: checks.every((x) => x.ok), checks, turn_id: bundle.proof.envelope.payload.turn_id, suffix: suffixCoverage(bundle) };
}
