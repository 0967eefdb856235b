/**
 * Audiences (spec "Knowledge": audience routes): tenant-local groups items are shared with. Any
 * user lists them (the upload form offers them); changes and member lists need an admin role (the
 * gateway's admin guard covers /v1/admin/*, not this path, so the service checks it itself).
 */
import type { Principal } from '../../../shared/identity/principal.js';
import { TAG_PATTERN, type Audience, type AudienceMembers } from '../contracts.js';
import { invalidInput, knowledgeError, notFoundError } from './errors.js';
import type { AsyncTransactor, AudienceStore } from './ports.js';
import { cleanUsers, isAdmin } from './visibility.js';

function nowIso(): string { return new Date().toISOString(); }

/** Dependencies of the audience use cases. */
export interface AudiencesDeps {
  tenantId: string;
  audiences: AudienceStore;
  tx: AsyncTransactor;
}

/** Audience use cases. */
export class Audiences {
  constructor(private readonly d: AudiencesDeps) {}

  /** The tenant's audiences with member counts (any user). */
  async list(): Promise<{ items: Audience[] }> { return { items: await this.d.audiences.list(this.d.tenantId) }; }

  /**
   * Create an audience or change its description (null keeps it).
   * @throws DomainError `admin_required` (403), `invalid_request` (tag shape, field `params.audience_tag`).
   */
  async upsert(p: Principal, tag: string, description: string | null): Promise<Audience> {
    this.requireAdmin(p);
    this.checkTag(tag);
    await this.d.audiences.upsert(this.d.tenantId, tag, description, nowIso());
    return (await this.d.audiences.list(this.d.tenantId)).find((a) => a.tag === tag)!;
  }

  /**
   * Replace the members of an audience (created when absent).
   * @returns the audience and its members, sorted. @throws DomainError `admin_required`, `invalid_request`.
   */
  async setMembers(p: Principal, tag: string, users: unknown): Promise<Audience & { user_ids: string[] }> {
    this.requireAdmin(p);
    this.checkTag(tag);
    const ids = cleanUsers(users, 'user_ids');
    await this.d.tx(async () => {
      await this.d.audiences.ensure(this.d.tenantId, [tag], nowIso());
      await this.d.audiences.setMembers(this.d.tenantId, tag, ids);
    });
    const a = (await this.d.audiences.list(this.d.tenantId)).find((x) => x.tag === tag)!;
    return { ...a, user_ids: await this.d.audiences.membersOf(this.d.tenantId, tag) };
  }

  /** Members of an audience, sorted. @throws DomainError `admin_required`, `not_found`. */
  async members(p: Principal, tag: string): Promise<AudienceMembers> {
    this.requireAdmin(p);
    if (!(await this.d.audiences.get(this.d.tenantId, tag))) throw notFoundError(`no audience ${tag}`);
    return { tag, user_ids: await this.d.audiences.membersOf(this.d.tenantId, tag) };
  }

  private requireAdmin(p: Principal): void {
    if (!isAdmin(p)) throw knowledgeError('admin_required', 'audience administration needs the admin role');
  }

  private checkTag(tag: string): void {
    if (!TAG_PATTERN.test(tag)) throw invalidInput('audience tag: letters, digits, . _ : -; at most 64', 'params.audience_tag');
  }
}
