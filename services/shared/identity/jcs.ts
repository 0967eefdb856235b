/**
 * RFC 8785 JSON Canonicalization Scheme (JCS), via the `canonicalize` package.
 *
 * DESIGN.md "Receipt format v1": JCS is RFC 8785 canonical JSON, UTF-8.
 */
import canonicalizeImpl from 'canonicalize';

const canonicalizeFn = canonicalizeImpl as unknown as (input: unknown) => string | undefined;

/**
 * Canonical JSON text of `value` (RFC 8785). Throws `TypeError` for values JSON cannot represent
 * (undefined at top level, functions, non-finite numbers).
 */
export function jcs(value: unknown): string {
  const out = canonicalizeFn(value);
  if (typeof out !== 'string') throw new TypeError('value has no canonical JSON form');
  return out;
}
