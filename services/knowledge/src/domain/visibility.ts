/**
 * Who may read and change what (spec "Knowledge" visibility table): the viewer of a principal,
 * the admin roles, the governance rules shared by batch ingests, wiki writes and document changes,
 * and the wiki read rule. Documents and chunks are filtered by the stores with the same table
 * (store/visibility-sql.ts); every read path goes through one of the two.
 */
import type { Awaitable } from '../../../shared/db/async-store.js';
import type { KnowledgeScope } from '../../../shared/identity/access-profiles.js';
import type { Principal } from '../../../shared/identity/principal.js';
import { ADMIN_ROLES, TAG_PATTERN, type VisibilityMode } from '../contracts.js';

export { ADMIN_ROLES };
import { invalidInput, knowledgeError, notFoundError } from './errors.js';
import type { AudienceStore, DocumentRow, DocumentStore, Viewer, WikiRow } from './ports.js';

/** True when the principal holds an admin role. */
export function isAdmin(p: Principal): boolean { return p.roles.some((r) => ADMIN_ROLES.includes(r)); }

/**
 * Distinct tags of `tags` (absent: none).
 * @throws DomainError `invalid_request` naming `field` when not an array of well-formed tags.
 */
export function cleanTags(tags: unknown, field: string): string[] {
  if (tags === undefined || tags === null) return [];
  if (!Array.isArray(tags)) throw invalidInput(`${field} must be an array of strings`, field);
  const out = new Set<string>();
  for (const t of tags) {
    if (typeof t !== 'string' || !TAG_PATTERN.test(t)) throw invalidInput(`${field} holds an invalid tag (letters, digits, . _ : -; at most 64)`, field);
    out.add(t);
  }
  return [...out];
}

/**
 * Distinct user ids of `users` (absent: none).
 * @throws DomainError `invalid_request` naming `field` when not an array of ids of 1-256 characters.
 */
export function cleanUsers(users: unknown, field: string): string[] {
  if (users === undefined || users === null) return [];
  if (!Array.isArray(users)) throw invalidInput(`${field} must be an array of user ids`, field);
  const out = new Set<string>();
  for (const u of users) {
    if (typeof u !== 'string' || u.length === 0 || u.length > 256) throw invalidInput(`${field} holds an invalid user id`, field);
    out.add(u);
  }
  return [...out];
}

/** Governance fields as a request gives them (unchecked lists). */
export interface GovernanceInput {
  visibility_mode?: VisibilityMode | undefined;
  audience_tags?: unknown;
  user_grants?: unknown;
  owner_user_id?: string | undefined;
  confirm_tenant_wide?: boolean | undefined;
}

/** Checked governance fields. */
export interface Governance { visibility: VisibilityMode; audiences: string[]; grants: string[]; owner: string }

/**
 * Resolve and check the governance fields of a batch, wiki write or document change: private by
 * default, owned by the caller unless an admin names another owner, a tenant-wide share needs
 * `confirm_tenant_wide`, private items take no audiences or grants, shared ones no grants.
 * @throws DomainError `owner_forbidden` (403), `confirm_tenant_wide_required` (400), `invalid_request` (400).
 */
export function resolveGovernance(p: Principal, body: GovernanceInput): Governance {
  const visibility = body.visibility_mode ?? 'private';
  const audiences = cleanTags(body.audience_tags, 'audience_tags');
  const grants = cleanUsers(body.user_grants, 'user_grants');
  const owner = body.owner_user_id ?? p.id;
  if (owner !== p.id && !isAdmin(p)) throw knowledgeError('owner_forbidden', 'only admins may make another user the owner of an item');
  if (visibility === 'shared' && audiences.length === 0 && body.confirm_tenant_wide !== true) {
    throw knowledgeError('confirm_tenant_wide_required', 'a shared item without audience_tags is visible to every user of the tenant; set confirm_tenant_wide: true to confirm');
  }
  if (visibility === 'private' && (audiences.length || grants.length)) {
    throw invalidInput('private items take no audience_tags or user_grants (use restricted or shared)', 'visibility_mode');
  }
  if (visibility === 'shared' && grants.length) throw invalidInput('user_grants apply to restricted items only', 'user_grants');
  return { visibility, audiences, grants, owner };
}

/** True when `v` may read the wiki page `w` (the visibility table, applied to a page, then the viewer's profile scope on its tags and audiences). */
export function canReadWiki(v: Viewer, w: WikiRow): boolean {
  if (v.admin || w.owner_user_id === v.userId) return true;
  if (v.scope && !w.tags.some((t) => v.scope!.tags.includes(t)) && !w.audience_tags.some((t) => v.scope!.audiences.includes(t))) return false;
  const inAudience = w.audience_tags.some((t) => v.audiences.includes(t));
  if (w.visibility_mode === 'shared') return w.audience_tags.length === 0 || inAudience;
  if (w.visibility_mode === 'restricted') return inAudience || w.user_grants.includes(v.userId);
  return false;
}

/** Dependencies of `Visibility`. */
export interface VisibilityDeps {
  tenantId: string;
  audiences: AudienceStore;
  documents: DocumentStore;
  /** The permission-profile scope of a principal (issue 13 item 8); absent = never narrowed. */
  scopes?: { scopeOf(p: Principal): Awaitable<KnowledgeScope | null> };
}

/** Viewers and document access of one tenant. */
export class Visibility {
  constructor(private readonly d: VisibilityDeps) {}

  /** The viewer of a principal: admin flag and audiences (memberships plus the principal's groups). */
  async viewerOf(p: Principal): Promise<Viewer> {
    const audiences = new Set(await this.d.audiences.ofUser(this.d.tenantId, p.id));
    for (const g of p.groups ?? []) audiences.add(g);
    return { tenantId: this.d.tenantId, userId: p.id, admin: isAdmin(p), audiences: [...audiences], scope: (await this.d.scopes?.scopeOf(p)) ?? null };
  }

  /** A document the caller may read. @throws DomainError `not_found` (absent and invisible answer the same). */
  async visibleDocument(p: Principal, id: string): Promise<DocumentRow> {
    const d = await this.d.documents.getVisible(await this.viewerOf(p), id);
    if (!d) throw notFoundError(`no document ${id}`);
    return d;
  }

  /**
   * A document the caller may change (owner or admin).
   * @throws DomainError `not_found` when invisible, `not_owner` (403) when visible only.
   */
  async managedDocument(p: Principal, id: string): Promise<DocumentRow> {
    const d = await this.visibleDocument(p, id);
    if (!isAdmin(p) && d.owner_user_id !== p.id) throw knowledgeError('not_owner', 'only the owner or an admin may change this document');
    return d;
  }
}
