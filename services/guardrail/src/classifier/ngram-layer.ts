/**
 * The trained n-gram classifier as a guard layer (issue 16 items 1 and 2): scores the content with
 * the model installed for this thread (`installNgramModel`; the scan workers install the shipped
 * weights at start) and answers one `scanner_results` entry, `ngram_classifier`, whose detail names
 * the model and each head's probability. The policy section `ngram_classifier` gives the action per
 * direction and the threshold (a probability; the shipped weights put their trained operating point
 * at 0.5). On user input both heads count (injection, harmful); on retrieved documents and tool
 * results only the injection head (a document about a harmful topic is not a request); on model
 * output only the injection head, and only when the policy's output action is not `off` (the
 * default). With no model installed the layer is skipped: the other layers decide. Pure, Node-free.
 */
import type { ContentSource, GuardPolicy, ScannerAction, ScannerResult } from '../contracts.js';
import { scoreNgram, type NgramModel } from './ngram.js';

/** `scanner_results[].scanner_name` of this layer. */
export const NGRAM_SCANNER = 'ngram_classifier';

let installed: NgramModel | null = null;

/** Make `model` the one this thread's checks use (null: the layer is skipped). */
export function installNgramModel(model: NgramModel | null): void { installed = model; }

/** The model this thread's checks use, or null. */
export function currentNgramModel(): NgramModel | null { return installed; }

/** What the layer found: its scanner result, and the action to take when it fired. */
export interface LayerOutcome {
  result: ScannerResult;
  /** Set when the layer fired: the policy's action, its risk and a reason fragment (no content). */
  fired: { action: ScannerAction; risk: number; summary: string } | null;
}

/** Heads that count for content of `source` in `direction`. */
function headsFor(direction: 'input' | 'output', source: ContentSource): string[] {
  if (direction === 'output' || source === 'document' || source === 'tool' || source === 'model') return ['injection'];
  return ['injection', 'harmful'];
}

const SUMMARY: Record<string, string> = { injection: 'prompt injection', harmful: 'harmful request' };

/**
 * Run the layer on `content`. @returns null when the policy turns it off for this direction or no
 * model is installed.
 */
export function ngramLayer(content: string, opts: { direction: 'input' | 'output'; source: ContentSource; policy: GuardPolicy }, model = installed): LayerOutcome | null {
  const p = opts.policy.ngram_classifier;
  const indirect = opts.source === 'document' || opts.source === 'tool';
  // Documents and tool results are outside what the model learned from (people's prompts): JSON of a
  // code run, key-value records and manuals read to it as "configuration overrides". There it only
  // records its score (`flag`); the rule layer's indirect-injection classes decide and cut spans.
  const action: ScannerAction = indirect ? (p.input === 'off' ? 'off' : 'flag') : opts.direction === 'input' ? p.input : p.output;
  if (action === 'off' || !model) return null;
  const score = scoreNgram(model, content);
  const heads = headsFor(opts.direction, opts.source);
  let top = heads[0]!;
  for (const h of heads) if ((score[h] ?? 0) > (score[top] ?? 0)) top = h;
  const risk = score[top] ?? 0;
  const bad = risk >= p.threshold;
  const detail = `${heads.map((h) => `${h} ${(score[h] ?? 0).toFixed(3)}`).join(', ')} (${model.name} ${model.version}, threshold ${p.threshold})`;
  return {
    result: { scanner_name: NGRAM_SCANNER, is_safe: !bad, risk_score: Math.round(risk * 1000) / 1000, detail },
    fired: bad ? { action: action === 'redact' ? 'block' : action, risk, summary: `${SUMMARY[top] ?? top} (n-gram classifier)` } : null,
  };
}
