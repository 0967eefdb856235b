/**
 * Guard policy: what each scanner does on input and on output, resolved per tenant and agent as
 * built-in defaults <- tenant override <- agent override (deep merge of partial overrides).
 */
import { SCANNER_ACTIONS, type EntityType, type GuardPolicy, type PolicyOverride, type ScannerAction, type ScannerPolicy } from '../contracts.js';
import { ALL_ENTITY_TYPES, DIRECT_IDENTIFIERS } from './entities.js';

/** The policy types (contracts.ts, derived from the schemas). */
export type { GuardPolicy, PolicyOverride, ScannerAction, ScannerPolicy };

/** Built-in defaults. */
export const DEFAULT_POLICY: GuardPolicy = Object.freeze({
  prompt_injection: { input: 'block', output: 'block', threshold: 0.5 },
  harmful_content: { input: 'block', output: 'flag', threshold: 0.5 },
  secrets: { input: 'redact', output: 'redact', threshold: 0.5 },
  pii: { input: 'flag', output: 'flag', threshold: 0.5, entities: [...DIRECT_IDENTIFIERS], nlp_in_checks: false },
  system_prompt_leak: { input: 'off', output: 'block', threshold: 0.5 },
  model_classifier: { mode: 'uncertain', threshold: 0.5, on_failure: 'open' },
  ngram_classifier: { input: 'block', output: 'off', threshold: 0.5 },
  encoder_classifier: { input: 'block', output: 'off', threshold: 0.92 },
}) as GuardPolicy;

const ACTIONS: readonly ScannerAction[] = SCANNER_ACTIONS;

/** Deep-merge overrides onto a base policy (later overrides win). */
export function resolvePolicy(base: GuardPolicy, ...overrides: Array<PolicyOverride | null | undefined>): GuardPolicy {
  const out = JSON.parse(JSON.stringify(base)) as GuardPolicy;
  for (const o of overrides) {
    if (!o) continue;
    for (const [k, v] of Object.entries(o) as Array<[keyof GuardPolicy, Record<string, unknown> | undefined]>) {
      if (!v || !(k in out)) continue;
      Object.assign(out[k] as object, v);
    }
  }
  return out;
}

/**
 * Validate a partial override; returns the cleaned override or an error message naming the field.
 * Unknown sections and keys are rejected so typos do not silently weaken a policy.
 */
export function validateOverride(raw: unknown): { ok: true; value: PolicyOverride } | { ok: false; error: string; field: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, error: 'policy must be an object', field: 'policy' };
  const out: Record<string, Record<string, unknown>> = {};
  for (const [section, val] of Object.entries(raw as Record<string, unknown>)) {
    if (!(section in DEFAULT_POLICY)) return { ok: false, error: `unknown policy section ${section}`, field: `policy.${section}` };
    if (typeof val !== 'object' || val === null || Array.isArray(val)) return { ok: false, error: `${section} must be an object`, field: `policy.${section}` };
    const def = DEFAULT_POLICY[section as keyof GuardPolicy] as unknown as Record<string, unknown>;
    const clean: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(val as Record<string, unknown>)) {
      const field = `policy.${section}.${key}`;
      if (!(key in def)) return { ok: false, error: `unknown setting ${section}.${key}`, field };
      if (key === 'input' || key === 'output') {
        if (!ACTIONS.includes(v as ScannerAction)) return { ok: false, error: `${field} must be one of ${ACTIONS.join(', ')}`, field };
      } else if (key === 'threshold') {
        if (typeof v !== 'number' || !(v >= 0 && v <= 1)) return { ok: false, error: `${field} must be a number in [0, 1]`, field };
      } else if (key === 'mode') {
        if (!['off', 'uncertain', 'always'].includes(v as string)) return { ok: false, error: `${field} must be off, uncertain or always`, field };
      } else if (key === 'entities') {
        if (!Array.isArray(v) || !v.every((e) => ALL_ENTITY_TYPES.includes(e as EntityType))) return { ok: false, error: `${field} must list entity types (${ALL_ENTITY_TYPES.join(', ')})`, field };
      } else if (key === 'on_failure') {
        if (!['open', 'closed'].includes(v as string)) return { ok: false, error: `${field} must be open or closed`, field };
      } else if (key === 'nlp_in_checks') {
        if (typeof v !== 'boolean') return { ok: false, error: `${field} must be a boolean`, field };
      }
      clean[key] = v;
    }
    out[section] = clean;
  }
  return { ok: true, value: out as PolicyOverride };
}
