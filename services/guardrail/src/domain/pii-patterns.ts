/**
 * Structured PII recognisers: e-mail, phone, payment card (IIN + Luhn), IBAN (mod-97), IPv4/IPv6,
 * national ids (US SSN and ITIN, UK NINO, Canadian SIN with Luhn, Spanish DNI/NIE with check letter,
 * Italian fiscal code, Indian PAN). Pure: regexes and check digits, no I/O.
 */
import { isIPv6 } from 'node:net';
import { ibanValid, luhnValid, spanishIdValid } from './checksums.js';
import type { EntitySpan } from './entities.js';

const EMAIL = /(?<![\w.+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}\b/g;
// 12-19 digits, optionally grouped by spaces or dashes.
const CARD = /(?<![\d-])(?:\d[ -]?){11,18}\d(?![\d-])/g;
const IBAN = /\b[A-Za-z]{2}\d{2}(?:[ ]?[A-Za-z0-9]){11,30}\b/g;
const IPV4 = /(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\d.]|\.\d)/g;
const IPV6_CANDIDATE = /(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?:%\w+)?(?![\w:])/g;
const SSN = /(?<![\d-])(?!000|666|9\d\d)\d{3}([- .])(?!00)\d{2}\1(?!0000)\d{4}(?![\d-])/g;
const SSN_PLAIN = /\b(?:ssn|social security(?: number| no\.?)?)\b[^\d\n]{0,20}((?!000|666|9\d\d)\d{3}(?!00)\d{2}(?!0000)\d{4})\b/gi;
const ITIN = /(?<![\d-])9\d{2}([- ])(?:5\d|6[0-5]|7\d|8[0-8]|9[0-24-9])\1\d{4}(?![\d-])/g;
const NINO = /\b(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/g;
const SIN = /(?<![\d-])\d{3}([- ])\d{3}\1\d{3}(?![\d-])/g;
const ES_ID = /\b(?:\d{8}|[XYZxyz]\d{7})-?[A-Za-z]\b/g;
const IT_CF = /\b[A-Za-z]{6}\d{2}[A-EHLMPR-Ta-ehlmpr-t]\d{2}[A-Za-z]\d{3}[A-Za-z]\b/g;
const IN_PAN = /\b[A-Z]{3}[ABCFGHLJPT][A-Z]\d{4}[A-Z]\b/g;
// International (+cc ...) or national formats: groups of digits with separators, 7-15 digits.
const PHONE = /(?<![\w+\-/.])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{1,5}(?:[ .-]\d{2,5}){1,4}(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?!\w|-\d|\.\d)|(?<![\w+])\+\d{8,14}(?:[ .-]\d{2,5}){0,3}\b|(?<![\w-])\(\d{2,4}\)[ ]?\d{3,4}[ -]?\d{0,4}\b/g;
// Whitespace between the cue and the number is bounded: three unbounded `\s*` in a row backtrack
// cubically on a long whitespace run (issue 11 item 6).
const PHONE_PLAIN = /\b(?:phone|tel|telephone|mobile|cell|fax|desk|office|call(?: me)?(?: at| on)?|text(?: me)?(?: at)?|whatsapp|sms)\b\s{0,8}(?:no\.?|number|#)?\s{0,8}[:.]?\s{0,8}(\+?\d{7,14})\b/gi;
const PHONE_CUE = /\b(?:phone|tel|telephone|mobile|cell|fax|call|text|whatsapp|sms|number|contact|reach|dial|ring)\b|☎|📞/i;

/** IIN ranges of the major card schemes (Visa, Mastercard, Amex, Discover, JCB, Diners, Maestro, UnionPay). */
function plausibleCardPrefix(d: string): boolean {
  const n2 = Number(d.slice(0, 2));
  const n4 = Number(d.slice(0, 4));
  const len = d.length;
  if (d[0] === '4') return len === 13 || len === 16 || len === 19;
  if ((n2 >= 51 && n2 <= 55) || (n4 >= 2221 && n4 <= 2720)) return len === 16;
  if (n2 === 34 || n2 === 37) return len === 15;
  if (n2 === 36 || n2 === 38 || n2 === 39 || (n4 >= 3000 && n4 <= 3059)) return len >= 14 && len <= 19;
  if (n2 === 35 || n4 === 2131 || n4 === 1800) return len >= 15 && len <= 19;
  if (d.startsWith('6011') || n2 === 65 || (n4 >= 6440 && n4 <= 6499) || n2 === 62) return len >= 16 && len <= 19;
  if (n2 === 50 || (n2 >= 56 && n2 <= 69)) return len >= 12 && len <= 19;
  return false;
}

function push(out: EntitySpan[], type: EntitySpan['type'], start: number, end: number, score: number, recognizer: string): void {
  out.push({ type, start, end, score, recognizer });
}

/** Digits per separator-free group sizes must look like a phone, not a date or a decimal. */
function phoneLike(text: string, start: number, end: number): boolean {
  const s = text.slice(start, end);
  const digits = s.replace(/\D/g, '');
  if (digits.length < 7 || digits.length > 15) return false;
  if (/^\d{4}[-./]\d{1,2}[-./]\d{1,2}$/.test(s) || /^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$/.test(s)) return false; // dates
  if (/^\d+\.\d+$/.test(s)) return false;
  if (/^\d{1,3}(,\d{3})+$/.test(s)) return false;
  const groups = s.split(/[^\d]+/).filter(Boolean);
  // "1990 2000" style pairs of years are not phones.
  if (groups.length === 2 && groups.every((g) => g.length === 4 && /^(1[89]|20)\d\d$/.test(g))) return false;
  const before = text.slice(Math.max(0, start - 40), start);
  const strongShape = /^\+/.test(s) || /^\(\d+\)/.test(s) || /^\d{3}-\d{3}-\d{4}$/.test(s) || /^0\d/.test(s) || groups.length >= 3;
  return strongShape || PHONE_CUE.test(before);
}

/** Run every structured recogniser over `text`. Overlaps are left for `resolveOverlaps`. */
export function findStructuredPii(text: string): EntitySpan[] {
  const out: EntitySpan[] = [];
  for (const m of text.matchAll(EMAIL)) push(out, 'EMAIL_ADDRESS', m.index, m.index + m[0].length, 0.99, 'email');
  for (const m of text.matchAll(CARD)) {
    const digits = m[0].replace(/\D/g, '');
    if (digits.length >= 12 && digits.length <= 19 && luhnValid(digits) && plausibleCardPrefix(digits) && !/^(\d)\1+$/.test(digits)) {
      push(out, 'CREDIT_CARD', m.index, m.index + m[0].length, 0.95, 'card_luhn');
    }
  }
  for (const m of text.matchAll(IBAN)) {
    let v = m[0];
    // Trim trailing words picked up by the optional-space grouping until the checksum holds.
    while (v.length >= 15 && !ibanValid(v)) {
      const cut = v.lastIndexOf(' ');
      if (cut < 0) { v = ''; break; }
      v = v.slice(0, cut);
    }
    if (v.length >= 15 && ibanValid(v)) push(out, 'IBAN_CODE', m.index, m.index + v.length, 0.99, 'iban_mod97');
  }
  for (const m of text.matchAll(IPV4)) push(out, 'IP_ADDRESS', m.index, m.index + m[0].length, 0.9, 'ipv4');
  for (const m of text.matchAll(IPV6_CANDIDATE)) {
    const v = m[0].replace(/%\w+$/, '');
    if (v.includes('::') || v.split(':').length >= 8) {
      if (isIPv6(v) && /[0-9a-f]/i.test(v.replace(/:/g, '')) && v.replace(/[^:]/g, '').length >= 2) push(out, 'IP_ADDRESS', m.index, m.index + m[0].length, 0.9, 'ipv6');
    }
  }
  for (const m of text.matchAll(SSN)) push(out, 'US_SSN', m.index, m.index + m[0].length, 0.85, 'us_ssn');
  for (const m of text.matchAll(SSN_PLAIN)) {
    const v = m[1]!;
    const at = m.index + m[0].lastIndexOf(v);
    push(out, 'US_SSN', at, at + v.length, 0.8, 'us_ssn_context');
  }
  for (const m of text.matchAll(ITIN)) push(out, 'US_ITIN', m.index, m.index + m[0].length, 0.9, 'us_itin');
  for (const m of text.matchAll(NINO)) push(out, 'UK_NINO', m.index, m.index + m[0].length, 0.85, 'uk_nino');
  for (const m of text.matchAll(SIN)) {
    if (luhnValid(m[0].replace(/\D/g, '')) && /\b(?:sin|social insurance)\b/i.test(text.slice(Math.max(0, m.index - 40), m.index))) {
      push(out, 'CA_SIN', m.index, m.index + m[0].length, 0.85, 'ca_sin');
    }
  }
  for (const m of text.matchAll(ES_ID)) {
    if (spanishIdValid(m[0].replace('-', ''))) push(out, 'ES_NIF', m.index, m.index + m[0].length, 0.85, 'es_nif');
  }
  for (const m of text.matchAll(IT_CF)) {
    if (/\d/.test(m[0]) && /[a-z]/i.test(m[0])) push(out, 'IT_FISCAL_CODE', m.index, m.index + m[0].length, 0.8, 'it_cf');
  }
  for (const m of text.matchAll(IN_PAN)) push(out, 'IN_PAN', m.index, m.index + m[0].length, 0.7, 'in_pan');
  for (const m of text.matchAll(PHONE)) {
    let start = m.index;
    let end = m.index + m[0].length;
    const v = text.slice(start, end).replace(/[ .-]+$/, '');
    end = start + v.length;
    if (v.startsWith(' ')) start++;
    if (phoneLike(text, start, end)) push(out, 'PHONE_NUMBER', start, end, 0.7, 'phone');
  }
  for (const m of text.matchAll(PHONE_PLAIN)) {
    const v = m[1]!;
    const at = m.index + m[0].lastIndexOf(v);
    push(out, 'PHONE_NUMBER', at, at + v.length, 0.75, 'phone_context');
  }
  return out;
}
