/**
 * Entity spans found by the recognisers, and overlap resolution.
 *
 * Entity type names follow Presidio's (`PERSON`, `EMAIL_ADDRESS`, `CREDIT_CARD`, ...) so results
 * compare directly with common PII benchmarks; `SECRET` covers credentials found by the secrets scanner.
 */

import { ENTITY_TYPES, type EntityType } from '../contracts.js';
import { GrowingSpanIndex } from './span-index.js';

/** Kinds of entity the guardrail recognises (contracts.ts). */
export type { EntityType };

/** Direct identifiers (the ones the de-identification recall target counts). */
export const DIRECT_IDENTIFIERS: readonly EntityType[] = [
  'PERSON', 'STREET_ADDRESS', 'EMAIL_ADDRESS', 'PHONE_NUMBER', 'CREDIT_CARD', 'IBAN_CODE', 'IP_ADDRESS',
  'US_SSN', 'US_ITIN', 'UK_NINO', 'CA_SIN', 'ES_NIF', 'IT_FISCAL_CODE', 'IN_PAN',
];

/** Every entity type, PII and secrets (the direct identifiers, then `SECRET`). */
export const ALL_ENTITY_TYPES: readonly EntityType[] = ENTITY_TYPES;

/** Entity types that are national identifiers (grouped as `national_id` in verdicts). */
export const NATIONAL_ID_TYPES: ReadonlySet<EntityType> = new Set(['US_SSN', 'US_ITIN', 'UK_NINO', 'CA_SIN', 'ES_NIF', 'IT_FISCAL_CODE', 'IN_PAN']);

/** A recognised span: `[start, end)` UTF-16 offsets into the scanned text. */
export interface EntitySpan {
  type: EntityType;
  start: number;
  end: number;
  /** 0..1 confidence of the recogniser. */
  score: number;
  /** Recogniser id, e.g. `card_luhn`, `name_context` (for diagnostics; never the value). */
  recognizer: string;
}

/** Resolution priority: structured, checksummed identifiers win over fuzzy ones. */
const PRIORITY: Record<EntityType, number> = {
  SECRET: 0, EMAIL_ADDRESS: 1, IBAN_CODE: 2, CREDIT_CARD: 3, US_SSN: 4, US_ITIN: 4, UK_NINO: 4, CA_SIN: 4, ES_NIF: 4, IT_FISCAL_CODE: 4,
  IN_PAN: 4, IP_ADDRESS: 5, STREET_ADDRESS: 6, PHONE_NUMBER: 7, PERSON: 8,
};

/**
 * Pick non-overlapping spans: by priority class, then longer first; output sorted by start.
 * O(n log n) (issue 11 item 6): each overlap test and insert is a Fenwick-tree walk.
 */
export function resolveOverlaps(spans: EntitySpan[]): EntitySpan[] {
  const sorted = [...spans].sort((a, b) => PRIORITY[a.type] - PRIORITY[b.type] || (b.end - b.start) - (a.end - a.start) || a.start - b.start);
  const index = new GrowingSpanIndex(spans.map((s) => s.start));
  const kept: EntitySpan[] = [];
  for (const s of sorted) {
    if (s.end <= s.start) continue;
    if (index.overlaps(s.start, s.end)) continue;
    index.insert(s.start, s.end);
    kept.push(s);
  }
  return kept.sort((a, b) => a.start - b.start);
}
