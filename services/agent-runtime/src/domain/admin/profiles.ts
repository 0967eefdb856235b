/**
 * Permission profiles (issue 13 item 8; spec "Roles and groups" 4: "permission_profiles rows carry
 * `roles` and `groups`; a profile applies when the caller's roles or groups intersect, and effective
 * access is the union"). CRUD over the `ProfileStore`, and the pure rules:
 * - a profile applies to a caller when one of its `roles` is among the caller's roles or one of its
 *   `groups` among the caller's groups (the signed principal's `groups`);
 * - tools: when at least one applying profile names tools, the caller may use only the union of them
 *   (names, `prefix*` globs, `*` = every tool); when none does, every tool (as without profiles);
 * - agents: the same union gates the agent a chat runs (403 `agent_not_allowed`, domain/chat/prepare.ts);
 * - knowledge: the audiences and tags the applying profiles name; the knowledge service narrows every
 *   read of a restricted caller to them (its own documents excepted), from the copy `KnowledgeScopeSync`
 *   pushes to it after each change (the pure rule is services/shared/identity/access-profiles.ts).
 */
import {
  knowledgeScopeOf, matchesAny, profileApplies, unionOfNamed, type AccessSubject,
} from '../../../../shared/identity/access-profiles.js';
import { ulidFactory } from '../../../../shared/identity/ulid.js';
import type { EffectiveAccess, PermissionProfile, ProfileInput, RolesView } from '../../contracts.js';
import { ROLE_DESCRIPTIONS } from '../../contracts.js';
import { invalidField, runtimeError } from '../errors.js';
import type { ToolGate } from '../tool-policy.js';
import type { ProfileRow, ProfileStore } from './ports.js';

const nextId = ulidFactory();

export type { AccessSubject };
export { matchesAny };


/** Parse a JSON list column (anything else: empty). */
function listOf(text: string): string[] {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch { return []; }
}

/** A stored row as the API shows it. */
export function profileView(r: ProfileRow): PermissionProfile {
  let knowledge: PermissionProfile['knowledge'] = {};
  try {
    const k = JSON.parse(r.knowledge) as Record<string, unknown>;
    if (Array.isArray(k.audiences)) knowledge.audiences = k.audiences.filter((x): x is string => typeof x === 'string');
    if (Array.isArray(k.tags)) knowledge.tags = k.tags.filter((x): x is string => typeof x === 'string');
  } catch { knowledge = {}; }
  return {
    id: r.id, name: r.name, roles: listOf(r.roles), groups: listOf(r.groups), agents: listOf(r.agents), tools: listOf(r.tools), knowledge,
    created_at: r.created_at, updated_at: r.updated_at, updated_by: r.updated_by,
  };
}

/** Whether `profile` applies to `who` (roles or groups intersect). */
export function applies(profile: Pick<PermissionProfile, 'roles' | 'groups'>, who: AccessSubject): boolean {
  return profileApplies(profile, who);
}

/** The effective access of `who` under `profiles` (pure). */
export function effectiveAccess(profiles: readonly PermissionProfile[], who: AccessSubject): EffectiveAccess {
  const on = profiles.filter((p) => applies(p, who));
  return {
    profiles: on.map((p) => ({ id: p.id, name: p.name })),
    tools: unionOfNamed(on, (p) => p.tools),
    agents: unionOfNamed(on, (p) => p.agents),
    knowledge: knowledgeView(profiles, who),
    enforced: ['tools', 'agents', 'knowledge'],
  };
}

/** The knowledge part of the effective access: null lists = not restricted (the knowledge service's rule). */
function knowledgeView(profiles: readonly PermissionProfile[], who: AccessSubject): EffectiveAccess['knowledge'] {
  const scope = knowledgeScopeOf(profiles, who);
  return scope ? { audiences: scope.audiences, tags: scope.tags } : { audiences: null, tags: null };
}

/** The agent gate of `who` (pure): null when not restricted, else whether an agent id is allowed. */
export function agentGate(profiles: readonly PermissionProfile[], who: AccessSubject): ((agentId: string) => boolean) | null {
  const agents = effectiveAccess(profiles, who).agents;
  return agents === null ? null : (id) => matchesAny(agents, id);
}

/** The tool gate of `who` (pure): null when not restricted. */
export function toolGate(profiles: readonly PermissionProfile[], who: AccessSubject): ToolGate | null {
  const tools = effectiveAccess(profiles, who).tools;
  return tools === null ? null : (name) => matchesAny(tools, name);
}

/** Distinct, trimmed entries. */
const clean = (l: readonly string[] | undefined): string[] => [...new Set((l ?? []).map((x) => x.trim()).filter(Boolean))];

/** Permission profiles of the tenants, with a short cache of each tenant's list (read on every chat turn). */
export class PermissionProfiles {
  private readonly cache = new Map<string, PermissionProfile[]>();
  /** Called after this instance changed a tenant's profiles (the other runtimes drop their cache: change-feed.ts). */
  onChanged: ((tenantId: string) => void) | null = null;

  constructor(
    private readonly store: ProfileStore,
    /** SVC_GROUP_ROLE_MAP as the runtime was given it, or null. */
    private readonly groupRoleMap: Record<string, string[]> | null = null,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Drop the cached list of `tenantId` (another runtime changed its profiles). */
  invalidate(tenantId: string): void { this.cache.delete(tenantId); }

  private changed(tenantId: string): void {
    this.cache.delete(tenantId);
    this.onChanged?.(tenantId);
  }

  /** Every profile of the tenant, by name. */
  async list(tenantId: string): Promise<PermissionProfile[]> {
    let l = this.cache.get(tenantId);
    if (!l) { l = (await this.store.list(tenantId)).map(profileView); this.cache.set(tenantId, l); }
    return l;
  }

  /** One profile. @throws DomainError `permission_profile_not_found`. */
  async get(tenantId: string, id: string): Promise<PermissionProfile> {
    const r = await this.store.get(tenantId, id);
    if (!r) throw runtimeError('permission_profile_not_found', `no permission profile ${id}`);
    return profileView(r);
  }

  /** Create a profile. @throws DomainError `permission_profile_name_taken` (409). */
  async create(tenantId: string, input: ProfileInput, by: string | null): Promise<PermissionProfile> {
    const at = this.now().toISOString();
    const row = this.row(tenantId, nextId(), input, at, at, by);
    if (!await this.store.insert(row)) throw runtimeError('permission_profile_name_taken', `a permission profile named "${input.name}" exists`);
    this.changed(tenantId);
    return profileView(row);
  }

  /** Replace a profile. @throws DomainError `permission_profile_not_found`, `permission_profile_name_taken`. */
  async replace(tenantId: string, id: string, input: ProfileInput, by: string | null): Promise<PermissionProfile> {
    const old = await this.get(tenantId, id);
    const row = this.row(tenantId, id, input, old.created_at, this.now().toISOString(), by);
    const r = await this.store.update(row);
    if (r === 'missing') throw runtimeError('permission_profile_not_found', `no permission profile ${id}`);
    if (r === 'name_taken') throw runtimeError('permission_profile_name_taken', `a permission profile named "${input.name}" exists`);
    this.changed(tenantId);
    return profileView(row);
  }

  /** Delete a profile. @throws DomainError `permission_profile_not_found`. */
  async remove(tenantId: string, id: string): Promise<void> {
    if (!await this.store.delete(tenantId, id)) throw runtimeError('permission_profile_not_found', `no permission profile ${id}`);
    this.changed(tenantId);
  }

  /** `GET /v1/admin/roles`. */
  async roles(tenantId: string): Promise<RolesView> {
    return {
      items: ROLE_DESCRIPTIONS.map((r) => ({ role: r.role, description: r.description })),
      group_role_map: this.groupRoleMap && Object.keys(this.groupRoleMap).length ? this.groupRoleMap : null,
      groups_source: 'the signed principal\'s groups (from the identity provider\'s token), matched as they are',
      profiles: await this.list(tenantId),
    };
  }

  /** Effective access of `who` in the tenant. */
  async effective(tenantId: string, who: AccessSubject): Promise<EffectiveAccess> {
    return effectiveAccess(await this.list(tenantId), who);
  }

  /** The agent gate of `who` in the tenant (null: every agent). */
  async agentGate(tenantId: string, who: AccessSubject): Promise<((agentId: string) => boolean) | null> {
    return agentGate(await this.list(tenantId), who);
  }

  /** The tool gate of `who` in the tenant (null: every tool). */
  async toolGate(tenantId: string, who: AccessSubject): Promise<ToolGate | null> {
    return toolGate(await this.list(tenantId), who);
  }

  /** The row to store. @throws DomainError `invalid_request` when the name is blank. */
  private row(tenantId: string, id: string, input: ProfileInput, createdAt: string, updatedAt: string, by: string | null): ProfileRow {
    if (!input.name.trim()) throw invalidField('the name must not be blank', 'body.name');
    const knowledge: Record<string, string[]> = {};
    if (input.knowledge?.audiences) knowledge.audiences = clean(input.knowledge.audiences);
    if (input.knowledge?.tags) knowledge.tags = clean(input.knowledge.tags);
    return {
      id, tenant_id: tenantId, name: input.name.trim(), roles: JSON.stringify(clean(input.roles)), groups: JSON.stringify(clean(input.groups)),
      agents: JSON.stringify(clean(input.agents)), tools: JSON.stringify(clean(input.tools)), knowledge: JSON.stringify(knowledge),
      created_at: createdAt, updated_at: updatedAt, updated_by: by,
    };
  }
}
