/**
 * Words for the profile page (plain TypeScript, unit-tested in Node): a proposed change as a
 * sentence, the preferences textarea <-> list, and whether a secret name is valid.
 */
import { SECRET_NAME_PATTERN, type ProfileChange } from '../api/types';

const LABELS: Record<string, string> = { display_name: 'name', timezone: 'time zone', language: 'language' };

/** A change as the suggestion card shows it, e.g. `Set your time zone to Europe/Berlin`, `Remember: Likes tea`. */
export function describeChange(c: ProfileChange): string {
  if (c.field === 'preferences') return c.op === 'remove' ? `Forget: ${c.value}` : `Remember: ${c.value}`;
  return `Set your ${LABELS[c.field] ?? c.field} to ${c.value}`;
}

/** The preferences textarea (one per line) as a list: trimmed, no empty lines, no repeats. */
export function preferencesOf(text: string): string[] {
  return [...new Set(text.split('\n').map((l) => l.trim()).filter(Boolean))];
}

const NAME = new RegExp(SECRET_NAME_PATTERN);

/** Whether `name` is a valid secret name (letters, digits, `_ . -`, 1-64). */
export function validSecretName(name: string): boolean {
  return NAME.test(name);
}

/** The IANA time zones this browser knows (empty where `Intl.supportedValuesOf` is missing). */
export function knownTimezones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (k: string) => string[] };
  try { return intl.supportedValuesOf?.('timeZone') ?? []; } catch { return []; }
}

/** This device's time zone, or null. */
export function deviceTimezone(): string | null {
  try { return Intl.DateTimeFormat().resolvedOptions().timeZone || null; } catch { return null; }
}
