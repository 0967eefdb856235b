/**
 * How deep a JSON text nests, found by one linear pass over the raw text (issue 11 item 4,
 * "Bounded input everywhere"). Nothing recursive runs and nothing is parsed, so a text nested
 * 100,000 levels deep costs one scan and cannot overflow a stack: the kit's JSON body parser
 * refuses over-deep bodies with it BEFORE `JSON.parse` and before any recursive code (schema
 * validation, canonical JSON, redaction, serialisation) sees them.
 *
 * Brackets inside strings do not count; escapes are honoured. The scan does not validate JSON:
 * a malformed text may give any depth, and the JSON parser that runs next refuses it.
 *
 * Node-free, so the offline verifier and the renderer may import it.
 */

/** Deepest nesting (objects and arrays) a request body may have (issue 11 item 4). */
export const JSON_MAX_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * The deepest nesting of objects and arrays in `text` (`1` for `{}`, `2` for `[{}]`, `0` for a
 * scalar). Stops early and returns `stopAbove + 1` as soon as the depth passes `stopAbove`.
 * Time is linear in the length of `text`; memory is constant.
 *
 * @param text a JSON text (need not be valid).
 * @param stopAbove stop scanning once the depth exceeds this (default: scan it all).
 */
export function jsonNestingDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let max = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i < 0) return max;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > stopAbove) return max;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return max;
}

/** True when `text` nests deeper than `maxDepth` (default `JSON_MAX_DEPTH`). Linear time. */
export function jsonTooDeep(text: string, maxDepth = JSON_MAX_DEPTH): boolean {
  return jsonNestingDepth(text, maxDepth) > maxDepth;
}

/**
 * Index of the quote closing the string that opens at `start`, or -1 when it never closes. Jumps
 * from quote to quote with `indexOf`; a quote preceded by an odd run of backslashes is escaped.
 * Each backslash run is counted once (runs end at the quote after them), so the whole is linear.
 */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return -1;
    let k = q - 1;
    while (k > start && text.charCodeAt(k) === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q;
    from = q + 1;
  }
}
