/**
 * Input bounds of the verifier (issue 11 item 4: "the verifier itself refuses over-deep input with a
 * verdict instead of crashing"). RFC 8785 canonicalisation (`canonicalize`) recurses once per
 * nesting level and overflows the stack near 3,000 levels in Node, so every JSON text or value the
 * verifier would canonicalise is measured first, iteratively (no recursion, linear time; texts with
 * the kit's `jsonNestingDepth`, the scanner the services' body parser uses), and
 * refused with `INPUT_TOO_DEEP` / `INPUT_TOO_LARGE` past these limits. Pure: runs in Node and in
 * the browser renderer alike.
 */
import { jsonNestingDepth } from '../../../shared/kit/json-depth.js';
import { VerificationError } from './types.js';

export { jsonNestingDepth };

/** The limits the verifier applies. */
export interface VerifierLimits {
  /**
   * Deepest nesting accepted, in the input and in every `signed_payload` it canonicalises
   * (`[]` and `{}` are depth 1, a scalar depth 0). A valid bundle's own structure is 5 deep; a
   * signed payload is its `detail` plus 1. Must stay at or above the services' limit on request
   * bodies (the kit's `JSON_MAX_DEPTH`, 64), so every row the service accepts can be verified.
   */
  maxDepth: number;
  /** Largest input text accepted, in UTF-8 bytes (the files `svc-verify` reads). */
  maxBytes: number;
}

/** Default limits: 256 levels (far below the ~3,000 where canonicalisation overflows), 256 MiB of text. */
export const VERIFIER_LIMITS: Readonly<VerifierLimits> = Object.freeze({ maxDepth: 256, maxBytes: 256 * 1024 * 1024 });

/** `VERIFIER_LIMITS` with `overrides` applied. */
export function verifierLimits(overrides: Partial<VerifierLimits> = {}): VerifierLimits {
  return { ...VERIFIER_LIMITS, ...overrides };
}

/**
 * Nesting depth of a JSON value, walked iteratively with an explicit stack. Stops as soon as the
 * depth passes `limit` and returns `limit + 1` (so a cyclic object also ends).
 */
export function jsonValueDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const depth = d + 1;
    if (depth > max) {
      max = depth;
      if (max > limit) return limit + 1;
    }
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, depth]);
  }
  return max;
}

/** UTF-8 byte length of `text`, counted without encoding it (stops counting past `limit`). */
export function utf8Length(text: string, limit = Number.POSITIVE_INFINITY): number {
  if (text.length > limit) return text.length;
  let n = 0;
  for (let i = 0; i < text.length && n <= limit; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) { n += 4; i++; }
    else n += 3;
  }
  return n;
}

/** `INPUT_TOO_DEEP` for something at `path` nested past `limit`. */
export function tooDeep(what: string, limit: number, path?: string): VerificationError {
  return new VerificationError('INPUT_TOO_DEEP', `${what} nests deeper than ${limit} levels; refused without reading further`, path);
}

/**
 * Check one JSON text (an input file) against the limits before it is parsed.
 * @returns null when within bounds, else the `INPUT_TOO_LARGE` / `INPUT_TOO_DEEP` error.
 */
export function checkJsonText(text: string, limits: VerifierLimits = VERIFIER_LIMITS, name = 'input'): VerificationError | null {
  if (utf8Length(text, limits.maxBytes) > limits.maxBytes) {
    return new VerificationError('INPUT_TOO_LARGE', `${name} is larger than ${limits.maxBytes} bytes; refused`);
  }
  if (jsonNestingDepth(text, limits.maxDepth) > limits.maxDepth) return tooDeep(name, limits.maxDepth);
  return null;
}

/**
 * Check an already parsed JSON value against the depth limit before any recursive walk.
 * @returns null when within bounds, else the `INPUT_TOO_DEEP` error.
 */
export function checkJsonValue(value: unknown, limits: VerifierLimits = VERIFIER_LIMITS, name = 'input'): VerificationError | null {
  return jsonValueDepth(value, limits.maxDepth) > limits.maxDepth ? tooDeep(name, limits.maxDepth) : null;
}
