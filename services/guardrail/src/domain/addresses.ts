/**
 * Street-address recogniser: house numbers with street words and suffixes (English and common
 * European forms), "Street-name Number" with a cue or a leading postcode, apartment/suite/unit
 * parts, military and PO boxes, "the corner of X and Y", then joins adjacent parts and extends over
 * the short city/region/postcode lines that follow an address line. Pure: no I/O.
 */
import type { EntitySpan } from './entities.js';

const SUFFIX_WORDS = 'street|st|avenue|ave|av|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|square|sq|parkway|pkwy|terrace|ter|circle|cir|highway|hwy|route|rte|alley|trail|trl|crescent|cres|close|row|walk|park|parks|gateway|gardens?|grove|heights|hill|hills|loop|manor|mews|pass|path|pike|plaza|point|ridge|run|spur|turnpike|union|valley|view|vista|crossing|expressway|freeway|junction|knoll|landing|meadows?|orchard|oval|shore|shores|summit|track|causeway|fort|squares|streets|roads|avenues|lanes|drives|courts|ways|stravenue|viaduct';
const FOREIGN_SUFFIX = String.raw`(?:stra(?:ss|ß)e|str\.|gasse|weg|platz|allee|ring|damm|ufer|gade|vej|veien|vegen|gata|gatan|gate|gaten|vei|veien|veg|vegur|vägen|väg|stræti|katu|kuja|tie|polku|kaari|utca|u\.|tér|út|körút|laan|straat|plein|gracht|kade|ulica|ul\.|iela|tee|vägen|hove|torget|torv|plads|sokak|caddesi|cad\.|str)`;
const PREFIX_WORDS = String.raw`(?:λεωφόρος|οδός|rua|rue|via|viale|calle|carrer|avenida|av\.|avda\.?|avenue|boulevard|bd\.?|strada|piazza|corso|largo|travessa|praça|plaza|paseo|camino|chemin|allée|impasse|ulica|ul\.|aleja|al\.|λ\.|οδός|odos)`;

// Word and name runs are bounded (64 characters): an unbounded run scanned again from every
// apostrophe or hyphen inside one long token is quadratic (issue 11 item 6).
const W = String.raw`[\p{L}\p{M}][\p{L}\p{M}'’.\-]{0,63}`;
const CAP = String.raw`\p{Lu}[\p{L}\p{M}'’.\-]{0,63}`;
const NUM = String.raw`\d{1,5}[A-Za-z]?(?:[/-]\d{1,4})?\.?`;
const CORE_PATTERNS: Array<[RegExp, number, string]> = [
  // "1668 Glyn St", "14 Crown Street Kishiev Squares", "370 3911 Fourth Avenue"
  [new RegExp(String.raw`\b\d{1,6}[A-Za-z]?(?:\s\d{1,5})?\s(?:${W}\s){0,4}?(?:${SUFFIX_WORDS})\b\.?(?:\s\p{Lu}[\p{L}\p{M}]{1,63}\s(?:${SUFFIX_WORDS})\b\.?)?`, 'giu'), 0.85, 'addr_suffix'],
  // "Rua do Arenque 1634", "Via Franscini 71", "846 31 Rue Al Imam Al Bakri"
  [new RegExp(String.raw`(?<![\p{L}\p{M}\d])(?:\d{1,6}\s(?:\d{1,5}\s)?)?${PREFIX_WORDS}\s(?:${W}\s){0,4}?${NUM}(?=[\s,.;)]|$)`, 'giu'), 0.8, 'addr_prefix'],
  [new RegExp(String.raw`(?<![\p{L}\p{M}\d])(?:\d{1,6}\s(?:\d{1,5}\s)?)?${PREFIX_WORDS}\s${CAP}(?:\s${CAP}){0,4}\s?(?=[\s,.;)]|$)`, 'gu'), 0.6, 'addr_prefix_words'],
  // "Søndergade 52", "Bundesstrasse 31", "808 Kálmán Imre u. 12.", "Trenerys gate 232"
  [new RegExp(String.raw`(?<![\p{L}\p{M}\d])(?:\d{1,6}\s(?:\d{1,5}\s)?)?(?:${CAP}\s){0,3}[\p{L}\p{M}]{0,63}${FOREIGN_SUFFIX}\s${NUM}`, 'gu'), 0.8, 'addr_foreign'],
  [new RegExp(String.raw`(?<![\p{L}\p{M}\d])(?:\d{1,6}\s(?:\d{1,5}\s)?)?[\p{L}\p{M}]{1,63}${FOREIGN_SUFFIX}\s${NUM}`, 'giu'), 0.75, 'addr_foreign_lc'],
  // Leading postcode/house number, street words, number: "6750 Koskikatu 25", "0605 πεντέλης 210"
  [new RegExp(String.raw`\b\d{1,6}(?:\s\d{1,5})?\s(?:${W}\s){0,3}${W}\s${NUM}(?=[\s,;)]|$)`, 'gu'), 0.7, 'addr_num_words_num'],
  // Military / PO boxes
  [/\b(?:PSC|Unit|CMR)\s\d{3,5},?\sBox\s\d{3,5}(?:\s{0,16}[AFD]PO\s(?:AA|AE|AP)\s\d{5})?/g, 0.9, 'addr_box'],
  [/\b(?:P\.?\s?O\.?\s?Box|Post(?:al)? Office Box|Postbox|Postfach|Apartado)\s#?\d{1,6}\b/gi, 0.8, 'addr_pobox'],
  [/\b(?:[AFD]PO)\s(?:AA|AE|AP)\s\d{5}\b/g, 0.85, 'addr_apo'],
  // Apartment / suite / unit parts
  [/\b(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|Flat|Room|Rm\.?|Floor|Fl\.?)\s?#?\s?\d{1,5}[A-Za-z]?\b/gi, 0.7, 'addr_unit'],
];
const CORNER = new RegExp(String.raw`\b(?:the\s)?corner\sof\s(.{3,60}?)\sand\s((?:\p{Lu}[\p{L}\p{M}'’.-]*\s?){1,4}(?:St\.?)?)`, 'gu');
// "Joaquin Suarez 2906" / "Allika 46" after an address cue.
const CUE = /\b(?:address(?:es)?|lives?|living|located|office is|offices are|moved|send|sent|ship|shipping|deliver|delivery|mail|drops? you off|stop at|meet (?:me|you) at|reside[sd]?|resides|billing|postal|home is|house is|at|on|to|is)\b[^\n]{0,25}$/i;
const CUED_NAME_NUM = new RegExp(String.raw`(?<![\p{L}\p{M}\d])(?:\p{Lu}[\p{L}\p{M}'’.-]{0,63}\s){1,3}\d{1,5}[A-Za-z]?\b\.?`, 'gu');
const COMMON_NON_STREET = /^(?:Windows|Office|iPhone|Android|Python|Java|Chapter|Section|Page|Part|Volume|Vol|Version|Room|Level|Step|Day|Week|Year|Apollo|Covid|COVID|Figure|Table|Article|Rule|Item|Model|Series|Episode|Season|Act|Psalm|Genesis|John|Luke|Matthew|Mark|Top|Fortune|Fahrenheit|Class|Grade|Type|Phase|Stage|Category|Form|Schedule|Exhibit|Appendix|Verse|Route|Gen|Web|Industry|Catch|Area|Agenda|Boeing|Airbus|Galaxy|Pixel|Xbox|PlayStation|Nintendo|Unit|Tier)\b/;

/** A short line that continues an address: city, region, country, postcode ("Artilleros", ", CO", "Uruguay 64677"). */
function continuationLine(line: string): boolean {
  const t = line.replace(/^[\s>?*|]+/, '').trim();
  if (!t || t.length > 48) return false;
  if (/[:@?!]|https?:|\b(?:phone|tel|fax|email|e-mail|website)\b/i.test(t)) return false;
  if ((t.match(/\d/g) ?? []).length > 10) return false;
  if (/\b\d{4,6}(?:-\d{3,4})?$/.test(t) && t.split(/\s+/).length <= 6 && !/\b(?:the|and|for|with|after|before|please)\b/i.test(t)) return true;
  if (/^(?:,\s*)?(?:nan|[\p{Lu}\d(][\p{L}\p{M}\d'’.()\-]*)(?:[\s,]+(?:nan|[\p{Lu}\d(][\p{L}\p{M}\d'’.()\-]*|de|del|do|da|di|la|le|am|an|im|upon|on|sur))*[.,]?$/u.test(t)) return true;
  return false;
}

/** Find street addresses in `text`. */
export function findAddresses(text: string): EntitySpan[] {
  const parts: Array<{ start: number; end: number; score: number; recognizer: string }> = [];
  for (const [re, score, id] of CORE_PATTERNS) {
    for (const m of text.matchAll(re)) {
      const v = m[0].replace(/[\s,]+$/, '');
      if (id === 'addr_num_words_num') {
        // Avoid "In 2020 there were 500": the words must look like a street name, not prose.
        const words = v.replace(/^\d+(?:\s\d+)?\s/, '').replace(/\s\S+$/, '').split(/\s/);
        const proper = words.filter((w) => /^\p{Lu}/u.test(w) || /[^\x00-\x7F]/.test(w)).length;
        const cue = CUE.test(text.slice(Math.max(0, m.index - 40), m.index));
        const lineStart = /(?:^|\n)[\s>?*-]*$/.test(text.slice(Math.max(0, m.index - 6), m.index));
        if (!(proper >= 1 && (cue || lineStart || proper === words.length)) && !cue) continue;
        if (words.some((w) => /^(?:the|and|or|of|were|was|are|is|in|on|for|with|to|people|years?|days?|times?|items?|percent|dollars?|units?|more|than|minutes?|hours?)$/i.test(w))) continue;
      }
      if (id === 'addr_prefix_words' && !CUE.test(text.slice(Math.max(0, m.index - 40), m.index))) continue;
      parts.push({ start: m.index, end: m.index + v.length, score, recognizer: id });
    }
  }
  for (const m of text.matchAll(CORNER)) parts.push({ start: m.index, end: m.index + m[0].trimEnd().length, score: 0.8, recognizer: 'addr_corner' });
  for (const m of text.matchAll(CUED_NAME_NUM)) {
    const before = text.slice(Math.max(0, m.index - 40), m.index);
    if (!/\b(?:address|lives?|living|located|office|moved|send|sent|ship|deliver|mail|drops? you off|stop at|meet (?:me|you) at|resides?|side of|corner of|street)\b[^\n.]{0,30}$/i.test(before)) continue;
    if (COMMON_NON_STREET.test(m[0])) continue;
    parts.push({ start: m.index, end: m.index + m[0].replace(/[\s,.]+$/, '').length, score: 0.6, recognizer: 'addr_cued' });
  }
  if (!parts.length) return [];
  parts.sort((a, b) => a.start - b.start || b.end - a.end);
  // Join parts separated only by spaces, commas or one newline; then extend over continuation lines.
  const merged: typeof parts = [];
  for (const p of parts) {
    const last = merged[merged.length - 1];
    if (last && p.start <= last.end + 4 && /^[\s,]*$/.test(text.slice(last.end, Math.max(last.end, p.start)))) {
      last.end = Math.max(last.end, p.end);
      last.score = Math.max(last.score, p.score);
    } else merged.push({ ...p });
  }
  const out: EntitySpan[] = [];
  for (const a of merged) {
    if (a.recognizer === 'addr_unit' && a.end - a.start < 12 && !/\d{3,}/.test(text.slice(a.start, a.end))) {
      // A lone "Room 5" is not an address; keep unit parts only with 3+ digit numbers.
      continue;
    }
    let end = a.end;
    // Same line: ", City" / " City, ST 12345" tails.
    const tail = /^(?:,?\s(?:\p{Lu}[\p{L}\p{M}'’.-]*|nan)(?:\s(?:\p{Lu}[\p{L}\p{M}'’.-]*|de|del|do|da|di|nan))*(?:,\s?(?:[A-Z]{2}|\p{Lu}[\p{L}\p{M}]+))?(?:\s\d{4,6}(?:-\d{3,4})?)?)(?=[\s.,?!;]|$)/u.exec(text.slice(end, end + 60));
    if (tail && !/\n/.test(tail[0])) end += tail[0].replace(/\.$/, '').length;
    for (let i = 0; i < 5; i++) {
      const nl = /^[ \t]*\n/.exec(text.slice(end));
      if (!nl) break;
      const lineStart = end + nl[0].length;
      let lineEnd = text.indexOf('\n', lineStart);
      if (lineEnd < 0) lineEnd = text.length;
      const line = text.slice(lineStart, lineEnd);
      if (!line.trim()) {
        // One blank line may sit between address lines ("Brønderslev\n\n Denmark 35018").
        const next = text.indexOf('\n', lineEnd + 1);
        const nextLine = text.slice(lineEnd + 1, next < 0 ? text.length : next);
        if (lineEnd < text.length && continuationLine(nextLine) && /\d{4,}|^\s*\p{Lu}/u.test(nextLine)) { end = lineEnd; continue; }
        break;
      }
      if (!continuationLine(line)) {
        // "Cyprus 36903? I am in ..." / "KNIVSTA, nan 18237 after the concert" — take the part up to the postcode.
        const head = /^[^\n]{0,40}?\b\d{4,6}(?:-\d{3,4})?(?=[\s?.!,]|$)/u.exec(line);
        if (head && continuationLine(head[0])) end = lineStart + head[0].length;
        break;
      }
      end = lineStart + line.replace(/[\s.]+$/, '').length;
    }
    out.push({ type: 'STREET_ADDRESS', start: a.start, end, score: a.score, recognizer: a.recognizer });
  }
  return out;
}
