/**
 * Profile values and changes, pure (issue 13 item 2): timezone and language validation with `Intl`,
 * the normalised content hash that identifies a suggestion (a dismissed one is never proposed
 * again), cleaning a proposal against the profile and the dismissals, merging a proposal into a
 * pending draft, and applying accepted changes to a profile.
 */
import { createHash } from 'node:crypto';
import {
  PROFILE_DISPLAY_NAME_MAX, PROFILE_DRAFT_CHANGES_MAX, PROFILE_PREFERENCES_MAX, PROFILE_PREFERENCE_MAX, type ProfileChange, type UserProfile,
} from '../../contracts.js';

/** IANA names: letters first, then letters, digits, `_`, `+`, `-`, `/` (offsets like `+01:00` are not IANA names). */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

/**
 * The canonical spelling of an IANA time zone (`europe/paris` -> `Europe/Paris`), or null when `Intl`
 * does not know it.
 */
export function canonicalTimezone(tz: string): string | null {
  const t = tz.trim();
  if (!IANA_NAME.test(t)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: t }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The canonical form of a BCP 47 language tag (`EN-gb` -> `en-GB`), or null when it is not one. */
export function canonicalLanguage(tag: string): string | null {
  const t = tag.trim();
  if (t === '' || t.length > 35) return null;
  try {
    return Intl.getCanonicalLocales(t)[0] ?? null;
  } catch {
    return null;
  }
}

/** Text as compared: NFKC, lower case, one space between words, no trailing punctuation. */
export function normaliseText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim().replace(/[\s.!;,]+$/u, '');
}

/** The hash that identifies a suggestion: sha256 of field, op and normalised value (hex). */
export function changeHash(c: ProfileChange): string {
  return createHash('sha256').update(`${c.field}\u0000${c.op}\u0000${normaliseText(c.value)}`, 'utf8').digest('hex');
}

/** One line, single spaces, trimmed. */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * A change in its canonical form, or null when it is not a valid change: scalar fields take `set`
 * (timezone and language must be valid), preferences `add` or `remove`.
 */
export function canonicalChange(c: ProfileChange): ProfileChange | null {
  const value = oneLine(c.value);
  if (!value) return null;
  switch (c.field) {
    case 'display_name':
      return c.op === 'set' && value.length <= PROFILE_DISPLAY_NAME_MAX ? { field: c.field, op: 'set', value } : null;
    case 'timezone': {
      const tz = c.op === 'set' ? canonicalTimezone(value) : null;
      return tz ? { field: c.field, op: 'set', value: tz } : null;
    }
    case 'language': {
      const lang = c.op === 'set' ? canonicalLanguage(value) : null;
      return lang ? { field: c.field, op: 'set', value: lang } : null;
    }
    case 'preferences':
      return (c.op === 'add' || c.op === 'remove') && value.length <= PROFILE_PREFERENCE_MAX ? { field: c.field, op: c.op, value } : null;
    default:
      return null;
  }
}

/** Whether `c` would change `p` (setting the value it has, adding a preference it holds, removing one it lacks: no). */
export function changesProfile(p: UserProfile, c: ProfileChange): boolean {
  if (c.field === 'preferences') {
    const has = p.preferences.some((x) => normaliseText(x) === normaliseText(c.value));
    return c.op === 'add' ? !has : has;
  }
  const current = p[c.field];
  return current === null || normaliseText(current) !== normaliseText(c.value);
}

/**
 * A proposal cleaned for the user: canonical valid changes that would change the profile, not
 * dismissed before, without repeats, at most `PROFILE_DRAFT_CHANGES_MAX`.
 * @param isDismissed whether the user dismissed the suggestion with this hash.
 */
export function cleanChanges(raw: readonly ProfileChange[], p: UserProfile, isDismissed: (hash: string) => boolean): ProfileChange[] {
  const out: ProfileChange[] = [];
  const seen = new Set<string>();
  for (const r of raw) {
    const c = canonicalChange(r);
    if (!c || !changesProfile(p, c)) continue;
    const h = changeHash(c);
    if (seen.has(h) || isDismissed(h)) continue;
    seen.add(h);
    out.push(c);
    if (out.length >= PROFILE_DRAFT_CHANGES_MAX) break;
  }
  return out;
}

/** The key two changes conflict on: a scalar field, or one preference (add and remove of it conflict). */
function slot(c: ProfileChange): string {
  return c.field === 'preferences' ? `preferences\u0000${normaliseText(c.value)}` : c.field;
}

/**
 * A pending draft's changes with a newer proposal merged in: a newer change replaces an older one
 * on the same slot (the same scalar field, or the same preference); at most `PROFILE_DRAFT_CHANGES_MAX`
 * (the newest kept).
 */
export function mergeChanges(older: readonly ProfileChange[], newer: readonly ProfileChange[]): ProfileChange[] {
  const slots = new Set(newer.map(slot));
  const merged = [...older.filter((c) => !slots.has(slot(c))), ...newer];
  return merged.slice(Math.max(0, merged.length - PROFILE_DRAFT_CHANGES_MAX));
}

/**
 * `p` with `changes` applied: scalar fields set, preferences added at the end or removed (compared
 * normalised); beyond `PROFILE_PREFERENCES_MAX` preferences the oldest are dropped.
 */
export function applyChanges(p: UserProfile, changes: readonly ProfileChange[]): UserProfile {
  const next: UserProfile = { ...p, preferences: [...p.preferences] };
  for (const c of changes) {
    if (c.field === 'preferences') {
      const key = normaliseText(c.value);
      const rest = next.preferences.filter((x) => normaliseText(x) !== key);
      next.preferences = c.op === 'add' ? [...rest, c.value] : rest;
    } else {
      next[c.field] = c.value;
    }
  }
  if (next.preferences.length > PROFILE_PREFERENCES_MAX) next.preferences = next.preferences.slice(next.preferences.length - PROFILE_PREFERENCES_MAX);
  return next;
}
