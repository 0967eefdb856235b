/**
 * Lenient JSON for streamed text (issue 12 item 9): a complete document, or the longest sensible
 * reading of a prefix of one. The chat reads tool arguments while they stream and tool results the
 * stream cut at 2,000 characters (spec "Limits"); `JSON.parse` refuses both, this keeps what arrived.
 */

const CUT = Symbol('cut');
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * Parse JSON text, or a prefix of it (a result the stream cut). Objects and arrays still open at the
 * end are closed, a string cut in its middle keeps what arrived, a number or literal cut in its
 * middle (or a key without its value) is left out.
 * @returns `{value, complete}` (`complete` false when the text ended early), or null when the text is
 *   not JSON (nor a prefix of it) or is not an object or array at its top.
 */
export function parseLenientJson(text: string): { value: unknown; complete: boolean } | null {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return null;
  try { return { value: JSON.parse(t) as unknown, complete: true }; } catch { /* a prefix, or not JSON */ }
  const n = t.length;
  let i = 0;
  let cut = false;
  const bad = (): never => { throw new SyntaxError(`not JSON at ${i}`); };
  const ws = (): void => { while (i < n && (t[i] === ' ' || t[i] === '\n' || t[i] === '\r' || t[i] === '\t')) i++; };
  const plain = /[^"\\]*/y;
  const str = (): string => {
    i++;
    let out = '';
    for (;;) {
      plain.lastIndex = i;
      out += plain.exec(t)![0];
      i = plain.lastIndex;
      if (i >= n) { cut = true; return out; }
      const c = t[i++]!;
      if (c === '"') return out;
      // A backslash.
      if (i >= n) { cut = true; return out; }
      const e = t[i++]!;
      if (e === 'u') {
        if (i + 4 > n) { cut = true; i = n; return out; }
        const hex = t.slice(i, i + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) bad();
        out += String.fromCharCode(parseInt(hex, 16));
        i += 4;
      } else {
        const m = ESCAPES[e];
        if (m === undefined) bad();
        out += m;
      }
    }
  };
  const atomRe = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
  const atom = (): unknown => {
    atomRe.lastIndex = i;
    const m = atomRe.exec(t);
    if (m && atomRe.lastIndex < n) { i = atomRe.lastIndex; return JSON.parse(m[0]) as unknown; }
    // At the very end: possibly cut in its middle (`12` of `123`, `tr` of `true`).
    const rest = t.slice(i);
    if (/^-?[\d.eE+-]*$/.test(rest) || ['true', 'false', 'null'].some((w) => w.startsWith(rest))) { cut = true; i = n; return CUT; }
    return bad();
  };
  const value = (): unknown => {
    ws();
    if (i >= n) { cut = true; return CUT; }
    const c = t[i];
    if (c === '{') return obj();
    if (c === '[') return arr();
    if (c === '"') return str();
    return atom();
  };
  const obj = (): Record<string, unknown> => {
    i++;
    const o: Record<string, unknown> = {};
    for (let first = true; ; first = false) {
      ws();
      if (i >= n) { cut = true; return o; }
      if (t[i] === '}') { i++; return o; }
      if (!first) { if (t[i] !== ',') bad(); i++; ws(); if (i >= n) { cut = true; return o; } }
      if (t[i] !== '"') bad();
      const k = str();
      if (cut) return o;
      ws();
      if (i >= n) { cut = true; return o; }
      if (t[i] !== ':') bad();
      i++;
      const v = value();
      if (v !== CUT) o[k] = v;
      if (cut) return o;
    }
  };
  const arr = (): unknown[] => {
    i++;
    const a: unknown[] = [];
    for (let first = true; ; first = false) {
      ws();
      if (i >= n) { cut = true; return a; }
      if (t[i] === ']') { i++; return a; }
      if (!first) { if (t[i] !== ',') bad(); i++; }
      const v = value();
      if (v !== CUT) a.push(v);
      if (cut) return a;
    }
  };
  try {
    const v = value();
    ws();
    if (!cut && i < n) return null;
    return { value: v, complete: !cut };
  } catch {
    return null;
  }
}
