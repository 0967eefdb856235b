/**
 * The order and the decision rule of the guard's layers (issue 16 items 3 and 4):
 *
 * 1. The scan (in a worker, `runCheck`): the rule scanners by attack class, the trained n-gram
 *    classifier, secrets, personal data, system-prompt leaks. Each blocks, redacts or flags by its
 *    own policy action and threshold.
 * 2. The imported encoder classifier, beside the scan (classifier/encoder-layer.ts), same rule.
 * 3. The model judge, asked `always`, or only when the check is UNCERTAIN and not already blocked:
 *    a layer's risk sits in the grey zone (at least half its threshold, under it). Its answer:
 *    `unsafe` blocks; `safe` changes nothing (a judge can be talked into "safe" by the very content
 *    it reads, so it never lifts another layer's block); no verdict (timeout, error, an answer
 *    outside the format) follows the policy's `on_failure`: `open` leaves the decision to the other
 *    layers, `closed` blocks. So a judge that times out never lets content through on its own, and
 *    since it reads a bounded excerpt (domain/judge.ts), padding cannot make it time out either.
 *
 * The layers that decided are named in the reason, in `scanner_results` (each layer's own entry)
 * and in the turn event (`decided_by`, and `judge` with its status, categories and latency). Pure.
 */
import type { GuardPolicy } from '../contracts.js';
import type { ClassifierVerdict, CheckOutcome } from './ports.js';

/** `scanner_results[].scanner_name` of the judge (the policy section `model_classifier`). */
export const JUDGE_SCANNER = 'model_classifier';

/** Scanners whose risk is a score against a policy threshold (the grey zone is half of it up to it). */
const SCORED: ReadonlyArray<[string, (p: GuardPolicy) => number | undefined]> = [
  ['prompt_injection', (p) => p.prompt_injection.threshold],
  ['harmful_content', (p) => p.harmful_content.threshold],
  ['ngram_classifier', (p) => (p as { ngram_classifier?: { threshold: number } }).ngram_classifier?.threshold],
  ['encoder_classifier', (p) => (p as { encoder_classifier?: { threshold: number } }).encoder_classifier?.threshold],
];

/** Whether some layer's risk sits in its grey zone (the rule scanners also say so themselves). */
export function isUncertain(res: CheckOutcome, policy: GuardPolicy): boolean {
  if (res.verdict.uncertain) return true;
  for (const [name, thresholdOf] of SCORED) {
    const t = thresholdOf(policy);
    if (t === undefined) continue;
    for (const r of res.result.scanner_results) if (r.scanner_name === name && r.is_safe && r.risk_score >= t * 0.5) return true;
  }
  return false;
}

/** Whether the judge is to be asked about this outcome under `policy`. */
export function judgeWanted(res: CheckOutcome, policy: GuardPolicy): boolean {
  const mode = policy.model_classifier.mode;
  if (mode === 'always') return true;
  return mode === 'uncertain' && res.result.decision !== 'block' && isUncertain(res, policy);
}

/** What the judge did, for the turn event (no content). */
export interface JudgeRecord {
  status: 'safe' | 'unsafe' | 'timeout' | 'error' | 'unparseable' | 'absent';
  categories: string[];
  latency_ms: number | null;
  /** For a judge without a verdict: what the policy made of it. */
  on_failure?: 'open' | 'closed';
}

/** Mark `res` blocked by `layer` with reason fragment `what`. */
function block(res: CheckOutcome, layer: string, what: string): void {
  res.verdict.fired.push(layer);
  res.verdict.blocked_by.push(layer);
  res.result.reason = res.result.decision === 'block' ? `${res.result.reason}; ${what}` : `blocked: ${what}`;
  res.result.decision = 'block';
  res.result.rewritten_content = null;
}

/**
 * Fold the judge's verdict into `res` by the rule above. `verdict` null: no judge is configured
 * (nothing is added). @returns the record for the turn event.
 */
export function applyJudge(res: CheckOutcome, verdict: ClassifierVerdict | null, policy: GuardPolicy): JudgeRecord {
  if (!verdict) return { status: 'absent', categories: [], latency_ms: null };
  const ms = verdict.latency_ms ?? null;
  const took = ms === null ? '' : ` in ${Math.round(ms)} ms`;
  if (verdict.failure) {
    const closed = policy.model_classifier.on_failure === 'closed';
    res.result.scanner_results.push({
      scanner_name: JUDGE_SCANNER, is_safe: !closed, risk_score: closed ? 1 : 0,
      detail: `judge gave no verdict (${verdict.failure})${took}; failed ${closed ? 'closed: blocked' : 'open: the other layers decided'}`,
    });
    if (closed) block(res, JUDGE_SCANNER, `the safety judge gave no verdict (${verdict.failure}; failed closed)`);
    return { status: verdict.failure, categories: [], latency_ms: ms, on_failure: closed ? 'closed' : 'open' };
  }
  const bad = verdict.risk >= policy.model_classifier.threshold;
  const cats = verdict.categories ?? [];
  res.result.scanner_results.push({ scanner_name: JUDGE_SCANNER, is_safe: !bad, risk_score: Math.round(verdict.risk * 1000) / 1000, detail: `judge: ${verdict.label}${took}` });
  if (bad) block(res, JUDGE_SCANNER, `model classifier (${verdict.label})`);
  return { status: bad ? 'unsafe' : 'safe', categories: cats, latency_ms: ms };
}

/** The layers that decided the outcome: those that blocked, else those that redacted or flagged, else none. */
export function decidedBy(res: CheckOutcome): string[] {
  if (res.verdict.blocked_by.length) return [...new Set(res.verdict.blocked_by)];
  return [...new Set(res.verdict.fired)];
}
