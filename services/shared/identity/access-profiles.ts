/**
 * The pure rules of permission profiles (spec "Roles and groups" 4: "permission_profiles rows carry
 * `roles` and `groups`; a profile applies when the caller's roles or groups intersect, and effective
 * access is the union"), shared by the agent runtime (which stores the profiles and gates tools and
 * agents) and the knowledge service (which narrows what a caller may retrieve to the knowledge the
 * profiles open; issue 13 item 8).
 *
 * A list a profile names restricts; a list no applying profile names does not ("no opinion"); `*`
 * in any applying profile's list lifts the restriction.
 */

/** Who asks: the principal's roles and groups. */
export interface AccessSubject { roles?: readonly string[]; groups?: readonly string[] }

/** What decides whether a profile applies. */
export interface ProfileMatch { roles: readonly string[]; groups: readonly string[] }

/** The knowledge a profile opens: audience tags and document tags (either may be absent). */
export interface ProfileKnowledgeLists { audiences?: readonly string[] | undefined; tags?: readonly string[] | undefined }

/** A profile as far as knowledge is concerned. */
export interface KnowledgeProfile extends ProfileMatch { knowledge: ProfileKnowledgeLists }

/**
 * The knowledge a restricted caller may use: documents carrying one of `tags`, or shared with one of
 * `audiences`, besides the caller's own. Both lists may be empty (then only the caller's own).
 */
export interface KnowledgeScope { audiences: string[]; tags: string[] }

/** Whether `profile` applies to `who` (one of its roles among the caller's roles, or one of its groups among the caller's groups). */
export function profileApplies(profile: ProfileMatch, who: AccessSubject): boolean {
  const roles = who.roles ?? [];
  const groups = who.groups ?? [];
  return profile.roles.some((r) => roles.includes(r)) || profile.groups.some((g) => groups.includes(g));
}

/** Whether `name` matches one of `patterns` (exact, `prefix*`, or `*`). */
export function matchesAny(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) => p === '*' || p === name || (p.endsWith('*') && name.startsWith(p.slice(0, -1))));
}

/**
 * Union of a list field over `profiles` (already the applying ones), sorted; null when no profile
 * names the field or one names `*` (not restricted).
 */
export function unionOfNamed<P>(profiles: readonly P[], pick: (p: P) => readonly string[] | undefined): string[] | null {
  const named = profiles.map(pick).filter((l): l is readonly string[] => !!l && l.length > 0);
  if (!named.length) return null;
  const all = [...new Set(named.flat())].sort();
  return all.includes('*') ? null : all;
}

/**
 * The knowledge scope of `who` under `profiles` (pure): null when not restricted (no applying
 * profile names audiences or tags, or one names `*` in either); else the union of the audiences and
 * of the tags of the applying profiles that name any.
 */
export function knowledgeScopeOf(profiles: readonly KnowledgeProfile[], who: AccessSubject): KnowledgeScope | null {
  const naming = profiles.filter((p) => profileApplies(p, who) && ((p.knowledge.audiences?.length ?? 0) + (p.knowledge.tags?.length ?? 0)) > 0);
  if (!naming.length) return null;
  const audiences = new Set<string>();
  const tags = new Set<string>();
  for (const p of naming) {
    for (const a of p.knowledge.audiences ?? []) audiences.add(a);
    for (const t of p.knowledge.tags ?? []) tags.add(t);
  }
  if (audiences.has('*') || tags.has('*')) return null;
  return { audiences: [...audiences].sort(), tags: [...tags].sort() };
}
