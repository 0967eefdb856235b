/**
 * Pure helpers of the directory search (issue 15 item 3): building the user filter with RFC 4515
 * escaping, and reading a user's identity and groups off search entries.
 */

/**
 * Escape `value` for use inside an LDAP filter assertion (RFC 4515 §3): `*`, `(`, `)`, `\` and NUL
 * become `\2a`, `\28`, `\29`, `\5c`, `\00`, so a username like `*)(uid=*` matches only itself.
 */
export function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\u0000]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * The user filter: every `{username}` in `template` replaced by the escaped `username`.
 * @example userFilter('(|(uid={username})(mail={username}))', 'a*') === '(|(uid=a\\2a)(mail=a\\2a))'
 */
export function userFilter(template: string, username: string): string {
  const escaped = escapeFilterValue(username);
  return template.split('{username}').join(escaped);
}

/** One attribute value of a search entry as LDAP clients return it (string, Buffer or a list of them). */
export type AttrValue = string | Buffer | Array<string | Buffer> | undefined;

/** The values of an attribute as strings (empty when absent). */
export function values(v: AttrValue): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map((x) => (typeof x === 'string' ? x : x.toString('utf8')));
}

/** The first value of an attribute, or null. */
export function first(v: AttrValue): string | null {
  return values(v)[0] ?? null;
}

/**
 * The name of a group from its DN: the value of the first RDN (`cn=Engineering,ou=groups,...` ->
 * `Engineering`), unescaped for the common `\,` form. @returns null when `dn` has no `=`.
 */
export function groupNameFromDn(dn: string): string | null {
  const m = /^[^=]+=((?:\\.|[^,\\])*)/.exec(dn.trim());
  if (!m) return null;
  return m[1]!.replace(/\\(.)/g, '$1');
}

/** Sorted, de-duplicated group names. */
export function uniqueGroups(names: Iterable<string>): string[] {
  return [...new Set([...names].filter((n) => n.length > 0))].sort();
}
