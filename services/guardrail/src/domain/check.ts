/**
 * The guard check (spec "Guardrail input check result"): runs the scanners a policy enables on one
 * piece of content and folds their results into `{decision, reason, scanner_results,
 * rewritten_content}`. Decisions: `block` when a scanner whose action is `block` fires; else
 * `redact` (with `rewritten_content`) when a `redact` scanner found spans; else `allow`. Flag-only
 * scanners report `is_safe: false` but do not change the decision. In a retrieved document or a
 * tool result, an injection that can be cut out is dropped (its spans replaced by a marker,
 * decision `redact`) instead of blocking the whole content (issue 16 item 4, domain/indirect.ts).
 * Pure: no I/O.
 */
import { NATIONAL_ID_TYPES, resolveOverlaps, type EntitySpan, type EntityType } from './entities.js';
import { scanHarmful } from './harmful.js';
import { scanInjection, combine, type ContentSource, type RuleHit } from './injection.js';
import { findEntities } from './pii.js';
import type { GuardDecision, GuardResult, ScannerResult } from '../contracts.js';
import type { GuardPolicy, ScannerAction } from './policy.js';
import { findSecrets } from './secrets.js';
import { applyEdits, entityEdits, injectionEdits, type Edit } from './indirect.js';
import { promptOverlap, systemPromptLeak } from './leak.js';
import { ngramLayer } from '../classifier/ngram-layer.js';

/** The result types (contracts.ts, derived from the schemas). */
export type { GuardDecision, GuardResult, ScannerResult };

/** What the check saw, for turn events and audit rows: scanner names, rule ids, entity kinds. */
export interface GuardVerdict {
  direction: 'input' | 'output';
  source: ContentSource;
  fired: string[];
  blocked_by: string[];
  rules: string[];
  entity_counts: Partial<Record<EntityType, number>>;
  /** True when a rule scanner's risk sits just under its threshold (the classifier may decide). */
  uncertain: boolean;
}

/** Options of `runCheck`. */
export interface CheckOptions {
  direction: 'input' | 'output';
  source?: ContentSource;
  policy: GuardPolicy;
  /** Output check: the user's input, so PII the user supplied is not counted as a leak. */
  input?: string | null;
  /** Output check: the system prompt, to detect verbatim leaks. */
  systemPrompt?: string | null;
}

/** A scanner that fired; `edits` (indirect injection in documents and tool results) are text replacements beside `spans`. */
interface Fired { name: string; action: ScannerAction; risk: number; summary: string; spans?: EntitySpan[]; edits?: Edit[] }

function actionFor(p: { input: ScannerAction; output: ScannerAction }, direction: 'input' | 'output'): ScannerAction {
  return direction === 'input' ? p.input : p.output;
}

function ruleDetail(hits: RuleHit[]): string {
  if (!hits.length) return 'no rule matched';
  const fams = [...new Set(hits.map((h) => h.family))];
  return `${fams.join(', ')} (rules: ${hits.map((h) => h.id).join(', ')})`;
}

function countEntities(spans: EntitySpan[]): Partial<Record<EntityType, number>> {
  const c: Partial<Record<EntityType, number>> = {};
  for (const s of spans) c[s.type] = (c[s.type] ?? 0) + 1;
  return c;
}

function entityDetail(c: Partial<Record<EntityType, number>>): string {
  const parts = Object.entries(c).map(([k, v]) => `${k} x${v}`);
  return parts.length ? `found ${parts.join(', ')}` : 'none found';
}

/** Fraction of the system prompt reproduced in an output (domain/leak.ts). */
export { promptOverlap };

/** Replace spans by `[REDACTED_<TYPE>]`. */
export function redactSpans(text: string, spans: EntitySpan[]): string {
  let out = '';
  let at = 0;
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    if (s.start < at) continue;
    out += text.slice(at, s.start) + `[REDACTED_${s.type}]`;
    at = s.end;
  }
  return out + text.slice(at);
}

/** Run the check. */
export function runCheck(content: string, opts: CheckOptions): { result: GuardResult; verdict: GuardVerdict } {
  const { policy, direction } = opts;
  const source: ContentSource = opts.source ?? (direction === 'input' ? 'user' : 'model');
  const results: ScannerResult[] = [];
  const fired: Fired[] = [];
  const rules: string[] = [];
  let uncertain = false;

  const inj = policy.prompt_injection;
  const injAction = source === 'document' || source === 'tool' ? inj.input === 'off' ? inj.output : inj.input : actionFor(inj, direction);
  if (injAction !== 'off') {
    let scan = scanInjection(content, source);
    if (source === 'model') {
      const hits = scan.hits.filter((h) => h.family === 'indirect_injection');
      scan = { hits, risk: combine(hits.map((h) => h.weight)) };
    }
    const bad = scan.risk >= inj.threshold;
    if (!bad && scan.risk >= inj.threshold * 0.5) uncertain = true;
    results.push({ scanner_name: 'prompt_injection', is_safe: !bad, risk_score: round(scan.risk), detail: ruleDetail(scan.hits) });
    rules.push(...scan.hits.map((h) => h.id));
    if (bad) {
      const summary = `prompt injection (${[...new Set(scan.hits.map((h) => h.family))].join(', ')})`;
      // Issue 16 item 4: in a document or tool result, drop the injected spans when they can be cut out.
      const cut = (source === 'document' || source === 'tool') && injAction !== 'flag' ? injectionEdits(content, source, inj.threshold) : null;
      if (cut) fired.push({ name: 'prompt_injection', action: 'redact', risk: scan.risk, summary: `${summary}: ${cut.edits.length} span${cut.edits.length === 1 ? '' : 's'} removed`, edits: cut.edits });
      else fired.push({ name: 'prompt_injection', action: injAction === 'redact' ? 'block' : injAction, risk: scan.risk, summary });
    }
  }

  const harm = policy.harmful_content;
  const harmAction = actionFor(harm, direction);
  if (harmAction !== 'off' && source !== 'document' && source !== 'tool') {
    const scan = scanHarmful(content);
    const bad = scan.risk >= harm.threshold;
    if (!bad && scan.risk >= harm.threshold * 0.5) uncertain = true;
    results.push({ scanner_name: 'harmful_content', is_safe: !bad, risk_score: round(scan.risk), detail: ruleDetail(scan.hits) });
    rules.push(...scan.hits.map((h) => h.id));
    if (bad) fired.push({ name: 'harmful_content', action: harmAction === 'redact' ? 'block' : harmAction, risk: scan.risk, summary: `harmful request (${[...new Set(scan.hits.map((h) => h.family))].join(', ')})` });
  }

  const entityCounts: Partial<Record<EntityType, number>> = {};
  const sec = policy.secrets;
  const secAction = actionFor(sec, direction);
  if (secAction !== 'off') {
    const spans = resolveOverlaps(findSecrets(content));
    const kinds = new Map<string, number>();
    for (const s of spans) kinds.set((s as { kind?: string }).kind ?? 'secret', (kinds.get((s as { kind?: string }).kind ?? 'secret') ?? 0) + 1);
    results.push({
      scanner_name: 'secrets', is_safe: spans.length === 0, risk_score: spans.length ? round(Math.max(...spans.map((s) => s.score))) : 0,
      detail: spans.length ? `found ${[...kinds].map(([k, v]) => `${k} x${v}`).join(', ')}` : 'none found',
    });
    if (spans.length) {
      entityCounts.SECRET = spans.length;
      fired.push({ name: 'secrets', action: secAction, risk: 1, summary: `credentials (${[...kinds.keys()].join(', ')})`, spans });
    }
  }

  const pii = policy.pii;
  const piiAction = actionFor(pii, direction);
  if (piiAction !== 'off') {
    const types = pii.entities.filter((t) => t !== 'SECRET');
    const nlp = pii.nlp_in_checks || piiAction === 'redact' || piiAction === 'block';
    let spans = findEntities(content, { types, nlp, nlpPeoplePass: nlp });
    if (opts.input) {
      const given = opts.input.toLowerCase();
      // One search per distinct value: an answer repeating a value many times costs one search.
      const seen = new Map<string, boolean>();
      const supplied = (v: string): boolean => { let r = seen.get(v); if (r === undefined) { r = given.includes(v); seen.set(v, r); } return r; };
      spans = spans.filter((s) => !supplied(content.slice(s.start, s.end).toLowerCase()));
    }
    const counts = countEntities(spans);
    Object.assign(entityCounts, counts);
    results.push({ scanner_name: 'pii', is_safe: spans.length === 0, risk_score: spans.length ? round(Math.max(...spans.map((s) => s.score))) : 0, detail: entityDetail(counts) });
    if (spans.length) {
      const groups = [...new Set(spans.map((s) => NATIONAL_ID_TYPES.has(s.type) ? 'national_id' : s.type.toLowerCase()))];
      fired.push({ name: 'pii', action: piiAction, risk: 1, summary: `personal data (${groups.join(', ')})`, spans });
    }
  }

  const leak = policy.system_prompt_leak;
  const leakAction = actionFor(leak, direction);
  if (leakAction !== 'off' && direction === 'output') {
    // Issue 16 item 5: reproduced, its guarded values given away, or announced (domain/leak.ts).
    const found = systemPromptLeak(content, opts.systemPrompt);
    const bad = found.risk >= leak.threshold;
    results.push({ scanner_name: 'system_prompt_leak', is_safe: !bad, risk_score: round(found.risk), detail: bad ? found.detail : found.risk > 0 ? `under threshold: ${found.detail}` : 'no leak found' });
    if (bad) fired.push({ name: 'system_prompt_leak', action: leakAction === 'redact' ? 'block' : leakAction, risk: found.risk, summary: 'system prompt disclosure' });
  }

  // The trained n-gram classifier (issue 16 item 2), when its weights are installed in this thread.
  const ngram = ngramLayer(content, { direction, source, policy });
  if (ngram) {
    results.push(ngram.result);
    // A document whose injected spans were cut out counts as what remains (issue 16 item 4).
    const cut = fired.find((f) => f.name === 'prompt_injection' && f.edits);
    const remains = ngram.fired && cut ? ngramLayer(applyEdits(content, cut.edits!), { direction, source, policy }) : null;
    if (remains && !remains.fired) ngram.result.detail += '; clean once the injected spans are removed';
    else if (ngram.fired) fired.push({ name: ngram.result.scanner_name, ...ngram.fired });
  }

  const blocking = fired.filter((f) => f.action === 'block');
  const redacting = fired.filter((f) => f.action === 'redact');
  let decision: GuardDecision = 'allow';
  let reason = 'no scanner fired';
  let rewritten: string | null = null;
  if (blocking.length) {
    decision = 'block';
    reason = `blocked: ${blocking.map((f) => f.summary).join('; ')}`;
  } else if (redacting.length) {
    decision = 'redact';
    reason = `redacted: ${redacting.map((f) => f.summary).join('; ')}`;
    rewritten = applyEdits(content, [...entityEdits(resolveOverlaps(redacting.flatMap((f) => f.spans ?? []))), ...redacting.flatMap((f) => f.edits ?? [])]);
  } else if (fired.length) {
    reason = `allowed with findings: ${fired.map((f) => f.summary).join('; ')}`;
  }
  return {
    result: { decision, reason, scanner_results: results, rewritten_content: rewritten },
    verdict: {
      direction, source, fired: fired.map((f) => f.name), blocked_by: blocking.map((f) => f.name), rules: [...new Set(rules)], entity_counts: entityCounts, uncertain,
    },
  };
}

/**
 * Fold a model classifier's risk into a result: a classifier at or above `threshold` blocks.
 */
export function applyClassifier(res: { result: GuardResult; verdict: GuardVerdict }, risk: number, threshold: number, label: string): void {
  const bad = risk >= threshold;
  res.result.scanner_results.push({ scanner_name: 'model_classifier', is_safe: !bad, risk_score: round(risk), detail: label });
  if (bad) {
    res.verdict.fired.push('model_classifier');
    res.verdict.blocked_by.push('model_classifier');
    res.result.reason = res.result.decision === 'block' ? `${res.result.reason}; model classifier: ${label}` : `blocked: model classifier (${label})`;
    res.result.decision = 'block';
    res.result.rewritten_content = null;
  }
}

function round(x: number): number { return Math.round(x * 1000) / 1000; }
