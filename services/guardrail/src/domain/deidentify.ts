/**
 * Reversible de-identification (DESIGN.md: `POST /v1/guard/deidentify`): entity spans become
 * placeholders `<TYPE_N>`, stable per value within a turn — the same value gets the same
 * placeholder every time it appears in that turn, a new value the next free number. The mapping
 * is injected (the service keeps it per turn in SQLite) so this code stays pure.
 */
import type { DeidEntity } from '../contracts.js';
import type { EntitySpan, EntityType } from './entities.js';

/** An entity in the deidentify answer: offsets into the original content (contracts.ts). */
export type { DeidEntity };

/** A placeholder assignment made by this call (to be persisted). */
export interface NewMapping { type: EntityType; key: string; value: string; placeholder: string }

/** The turn's existing mapping: value key -> placeholder, and the highest number used per type. */
export interface TurnMapping {
  byKey: { get(key: string): string | undefined; set(key: string, placeholder: string): unknown };
  maxIndex: Map<EntityType, number>;
}

/** The lookup key of a value: type plus a normalised form (digits only for numbers, case-folded text). */
export function valueKey(type: EntityType, value: string): string {
  const numeric = type === 'CREDIT_CARD' || type === 'PHONE_NUMBER' || type === 'US_SSN' || type === 'US_ITIN' || type === 'CA_SIN';
  const norm = numeric ? value.replace(/\D/g, '') : type === 'IBAN_CODE' || type === 'UK_NINO' ? value.replace(/\s+/g, '').toUpperCase()
    : value.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  return `${type}:${norm}`;
}

/** Replace `spans` in `text` with placeholders, reusing and extending `mapping`. */
export function deidentify(text: string, spans: EntitySpan[], mapping: TurnMapping): { deidentified: string; entities: DeidEntity[]; added: NewMapping[] } {
  const entities: DeidEntity[] = [];
  const added: NewMapping[] = [];
  let out = '';
  let at = 0;
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    if (s.start < at) continue;
    const value = text.slice(s.start, s.end);
    const key = valueKey(s.type, value);
    let ph = mapping.byKey.get(key);
    if (!ph) {
      const n = (mapping.maxIndex.get(s.type) ?? 0) + 1;
      mapping.maxIndex.set(s.type, n);
      ph = `<${s.type}_${n}>`;
      mapping.byKey.set(key, ph);
      added.push({ type: s.type, key, value, placeholder: ph });
    }
    entities.push({ type: s.type, start: s.start, end: s.end, placeholder: ph });
    out += text.slice(at, s.start) + ph;
    at = s.end;
  }
  return { deidentified: out + text.slice(at), entities, added };
}

const PLACEHOLDER = /<([A-Z][A-Z_]*_\d+)>/g;

/** Placeholders `<TYPE_N>` mentioned in `text`. */
export function placeholdersIn(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => `<${m[1]}>`))];
}

/** Replace known placeholders by their values; unknown ones stay as they are. */
export function reidentify(text: string, values: ReadonlyMap<string, string>): { content: string; replaced: number } {
  let replaced = 0;
  const content = text.replace(PLACEHOLDER, (whole) => {
    const v = values.get(whole);
    if (v === undefined) return whole;
    replaced++;
    return v;
  });
  return { content, replaced };
}
