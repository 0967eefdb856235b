/**
 * The visibility rule of documents (spec "Knowledge" visibility table) in PostgreSQL SQL: the same
 * condition as ../visibility-sql.ts (the visibility table, then the permission-profile scope, then
 * the search's filter), built per viewer with `$n` parameters. Clauses that cannot narrow (an admin,
 * no scope, no filter) are left out rather than passed as flags.
 */
import type { Viewer } from '../../domain/ports.js';
import { isFiltered } from '../visibility-sql.js';

/** Collects positional parameters: `add(v)` returns its `$n`. */
export class Params {
  readonly values: unknown[] = [];
  /** @param first values already bound before these (their count). */
  constructor(first: unknown[] = []) { this.values.push(...first); }
  /** Bind `v`. @returns its placeholder. */
  add(v: unknown): string { this.values.push(v); return `$${this.values.length}`; }
}

const inAudiences = (p: string): string => `EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id AND a.audience_tag = ANY(${p}::text[]))`;

/** Condition on `documents d`: `viewer` may read the document. Binds its parameters into `ps`. */
export function pgVisible(v: Viewer, ps: Params): string {
  const parts: string[] = [];
  if (!v.admin) {
    const uid = ps.add(v.userId);
    const aud = ps.add(v.audiences);
    parts.push(`(d.owner_user_id = ${uid}
      OR (d.visibility_mode = 'shared' AND (NOT EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id) OR ${inAudiences(aud)}))
      OR (d.visibility_mode = 'restricted' AND (EXISTS (SELECT 1 FROM document_grants g WHERE g.document_id = d.id AND g.user_id = ${uid}) OR ${inAudiences(aud)})))`);
    const scope = v.scope ?? null;
    if (scope) {
      parts.push(`(d.owner_user_id = ${uid} OR d.tags ?| ${ps.add(scope.tags)}::text[] OR ${inAudiences(ps.add(scope.audiences))})`);
    }
  }
  if (isFiltered(v)) {
    const f = v.filter!;
    parts.push(`(d.id = ANY(${ps.add(f.documentIds)}::text[]) OR d.tags ?| ${ps.add(f.tags)}::text[] OR ${inAudiences(ps.add(f.audiences))})`);
  }
  return parts.length ? `(${parts.join(' AND ')})` : 'true';
}
