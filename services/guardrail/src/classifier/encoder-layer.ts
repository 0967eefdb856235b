/**
 * The imported encoder classifier as a guard layer (issue 16 item 1): the port the check asks
 * (`EncoderClassifierPort`, implemented over a worker thread in encoder.ts), what it answers, the
 * risk taken from the model's labels, and how an answer is folded into a check's outcome with the
 * policy's `encoder_classifier` section (action per direction, threshold as a probability).
 *
 * The layer decides only when it answered: a model that is absent, still loading, failed, busy or
 * past its time limit never lets content through on its own and never blocks it on its own; the
 * other layers decide, and its `scanner_results` entry (`encoder_classifier`) says why it did not
 * count. On model output it runs only when the policy's output action is not `off` (the default).
 * Pure, Node-free.
 */
import type { ContentSource, EncoderStatus, GuardPolicy, ScannerAction } from '../contracts.js';
import type { CheckOutcome } from '../domain/ports.js';

/** `scanner_results[].scanner_name` of this layer. */
export const ENCODER_SCANNER = 'encoder_classifier';

/** Status for /readyz, `GET /v1/guard/status` and the admin UI (contracts.ts). */
export type { EncoderStatus };

/** One answer of the port. `ok`: the highest risk over the text's windows and the label that gave it. */
export type EncoderAnswer =
  | { state: 'ok'; risk: number; label: string; windows: number; ms: number }
  | { state: 'unavailable' | 'timeout' | 'busy' | 'error'; reason: string; ms: number };

/** The encoder classifier as the check uses it. */
export interface EncoderClassifierPort {
  /** Classify `content`. Never throws: a failure is an answer whose state says why. */
  classify(content: string): Promise<EncoderAnswer>;
  status(): EncoderStatus;
}

/** Labels read as harmless (the rest are risks): SAFE, BENIGN, LEGIT, LEGITIMATE, NEGATIVE, NORMAL, NO_INJECTION. */
const BENIGN_LABEL = /^(?:safe|benign|legit(?:imate)?|negative|normal|no[_ -]?injection)$/i;

/**
 * Indices of the harmless labels of a model (`id2label` in index order). When no label reads as
 * harmless, index 0 is taken as the harmless class (a binary classifier's usual layout).
 */
export function benignLabelIndices(labels: readonly string[]): number[] {
  const idx = labels.map((l, i) => (BENIGN_LABEL.test(l.trim()) ? i : -1)).filter((i) => i >= 0);
  return idx.length ? idx : [0];
}

/**
 * Risk of one window from the model's class probabilities: 1 minus the probability of the harmless
 * labels, and the most probable harmful label.
 */
export function riskOf(probs: ArrayLike<number>, labels: readonly string[]): { risk: number; label: string } {
  const benign = new Set(benignLabelIndices(labels));
  let safe = 0;
  let best = -1;
  for (let i = 0; i < probs.length; i++) {
    if (benign.has(i)) safe += probs[i]!;
    else if (best < 0 || probs[i]! > probs[best]!) best = i;
  }
  return { risk: Math.min(1, Math.max(0, 1 - safe)), label: best >= 0 ? (labels[best] ?? `LABEL_${best}`) : 'none' };
}

/**
 * The policy's action for this layer on content of `source` in `direction` (retrieved documents and
 * tool results use the input action: they are checked before they reach the model).
 */
export function encoderAction(policy: GuardPolicy, direction: 'input' | 'output', source: ContentSource): ScannerAction {
  const p = policy.encoder_classifier;
  return direction === 'input' || source === 'document' || source === 'tool' ? p.input : p.output;
}

/**
 * Fold the encoder's answer into a check's outcome: one `encoder_classifier` scanner result; at or
 * over the threshold with action `block` the decision becomes `block` (reason names the layer),
 * with `flag` the result is only marked unsafe. An answer that is not `ok` changes nothing but its
 * own result (`is_safe: true`, risk 0, detail saying why it did not count). Unavailable models add
 * no result at all (status says so).
 */
export function applyEncoder(res: CheckOutcome, answer: EncoderAnswer, policy: GuardPolicy, action: ScannerAction): void {
  if (answer.state === 'unavailable' || action === 'off') return;
  const threshold = policy.encoder_classifier.threshold;
  if (answer.state !== 'ok') {
    res.result.scanner_results.push({ scanner_name: ENCODER_SCANNER, is_safe: true, risk_score: 0, detail: `not counted: ${answer.reason} (${Math.round(answer.ms)} ms); the other layers decided` });
    return;
  }
  const bad = answer.risk >= threshold;
  res.result.scanner_results.push({
    scanner_name: ENCODER_SCANNER, is_safe: !bad, risk_score: Math.round(answer.risk * 1000) / 1000,
    detail: `${answer.label} ${answer.risk.toFixed(3)} over ${answer.windows} window${answer.windows === 1 ? '' : 's'} in ${Math.round(answer.ms)} ms (threshold ${threshold})`,
  });
  if (!bad) return;
  res.verdict.fired.push(ENCODER_SCANNER);
  if (action !== 'block' && action !== 'redact') return;
  res.verdict.blocked_by.push(ENCODER_SCANNER);
  const what = `prompt injection (encoder classifier: ${answer.label})`;
  res.result.reason = res.result.decision === 'block' ? `${res.result.reason}; ${what}` : `blocked: ${what}`;
  res.result.decision = 'block';
  res.result.rewritten_content = null;
}
