/**
 * What every verifier check shares (DESIGN.md "Receipt format v1", last bullet): the input a check
 * reads, the titles of the checks, and how failures collect into a `CheckResult`. Pure.
 */
import type { HashProvider } from './hash.js';
import type { VerifierLimits } from './limits.js';
import { VerificationError, type CheckId, type CheckResult, type ReceiptBundle, type VerificationErrorCode } from './types.js';

/**
 * What a check reads: the parsed bundle, the keys (key_version label -> key text), the hash
 * implementation, and the input limits (default `VERIFIER_LIMITS`).
 */
export interface CheckInput {
  bundle: ReceiptBundle;
  keys: ReadonlyMap<string, string>;
  hash: HashProvider;
  limits?: VerifierLimits;
}

/** One check of the pipeline: pure, never throws, reports every failure it finds. */
export type Check = (input: CheckInput) => CheckResult;

/** Human titles of the checks. */
export const CHECK_TITLES: Readonly<Record<CheckId, string>> = {
  structure: 'bundle structure',
  binding: 'receipt, detail and proof bind to one envelope',
  leaves: 'event leaves match the envelope',
  merkle_root: 'Merkle root over the leaves',
  envelope_hmac: 'envelope HMAC',
  anchor: 'anchor row commits to the envelope',
  suffix_hmac: 'audit row HMACs of the chain suffix',
  suffix_continuity: 'chain suffix continuity',
  envelope_signature: 'envelope Ed25519 signature (public key)',
  checkpoint: 'signed checkpoint covers the anchor',
};

/** Most errors a check keeps (the first one names the failure). */
const MAX_ERRORS = 50;

/** Collects the failures of one check under its default error code. */
export class Collector {
  readonly errors: VerificationError[] = [];
  constructor(private readonly code: VerificationErrorCode) {}
  /** Record a failure (at most 50 are kept). */
  add(message: string, path?: string, code: VerificationErrorCode = this.code): void {
    if (this.errors.length < MAX_ERRORS) this.errors.push(new VerificationError(code, message, path));
  }
}

/** The result of check `id`: ok with `okDetail`, or the first failure's message (+ how many more). */
export function checkResult(id: CheckId, c: Collector, okDetail: string): CheckResult {
  const ok = c.errors.length === 0;
  return {
    id, title: CHECK_TITLES[id], ok,
    detail: ok ? okDetail : c.errors[0]!.message + (c.errors.length > 1 ? ` (+${c.errors.length - 1} more)` : ''),
    errors: c.errors,
  };
}

/**
 * A check that could not be made with the material given (issue 22 item 4: e.g. an HMAC check
 * without the secret): `ok` false and `skipped` true, so it never reads as passed.
 */
export function notChecked(id: CheckId, why: string): CheckResult {
  return { id, title: CHECK_TITLES[id], ok: false, skipped: true, detail: `not checked: ${why}`, errors: [new VerificationError('NOT_CHECKED', `not checked: ${why}`)] };
}

/** A check that could not run (the input did not parse). */
export function notRun(id: CheckId, why: string): CheckResult {
  return { id, title: CHECK_TITLES[id], ok: false, detail: `not run: ${why}`, errors: [new VerificationError('MALFORMED', `not run: ${why}`)] };
}
