/**
 * Text normalisation for the rule scanners: Unicode NFKC (folds full-width and styled letters),
 * zero-width and bidi control characters removed, typographic quotes folded, lower case,
 * whitespace collapsed. Offsets are not preserved: scanners that report spans use the raw text.
 */
const INVISIBLE = /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF]/g;

/** Normalise `s` for rule matching (see module doc). */
export function normalizeForScan(s: string): string {
  return s.normalize('NFKC').replace(INVISIBLE, '').replace(/[\u2018\u2019\u201B\u2032]/g, "'").replace(/[\u201C\u201D\u201E\u2033]/g, '"')
    .toLowerCase().replace(/\s+/g, ' ');
}

/** ROT13 of the ASCII letters of `s`. */
export function rot13(s: string): string {
  return s.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** True when most characters of `s` are printable text (decoded payload looks like language). */
export function mostlyPrintable(s: string): boolean {
  if (s.length < 6) return false;
  let ok = 0;
  for (const ch of s) { const c = ch.charCodeAt(0); if ((c >= 32 && c < 127) || c === 10 || c === 13 || c === 9 || c > 159) ok++; }
  return ok / s.length > 0.9 && /[a-z]{3,}/i.test(s) && /\s/.test(s);
}

/**
 * Candidate encoded payloads in `raw`: base64 / base64url runs and hex runs that decode to printable
 * text. Returns the decoded strings (at most `max`).
 */
export function decodeCandidates(raw: string, max = 8): string[] {
  const out: string[] = [];
  for (const m of raw.matchAll(/[A-Za-z0-9+/_-]{16,}={0,2}/g)) {
    if (out.length >= max) break;
    const v = m[0];
    if (!/[A-Z]/.test(v) || !/[a-z]/.test(v)) continue;
    try {
      const dec = Buffer.from(v.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
      if (mostlyPrintable(dec)) out.push(dec);
    } catch { /* not base64 */ }
  }
  for (const m of raw.matchAll(/(?:(?:0x)?[0-9a-fA-F]{2}[\s:,\\x]{0,8}){12,}/g)) {
    if (out.length >= max) break;
    const hex = m[0].replace(/0x|\\x|[\s:,]/g, '');
    if (hex.length % 2 !== 0) continue;
    const dec = Buffer.from(hex, 'hex').toString('utf8');
    if (mostlyPrintable(dec)) out.push(dec);
  }
  return out;
}
