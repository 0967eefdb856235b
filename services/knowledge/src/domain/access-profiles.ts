/**
 * Permission profiles in the knowledge service (issue 13 item 8; spec "Roles and groups" 4). The
 * agent runtime owns the profiles (`/v1/admin/roles/profiles`) and pushes the tenant's whole list
 * here (`PUT /v1/internal/knowledge/access-profiles`) after each change and at its start; this keeps
 * the copy and answers, for a principal, the knowledge scope its applying profiles open
 * (services/shared/identity/access-profiles.ts `knowledgeScopeOf`). Admins are never narrowed.
 */
import { knowledgeScopeOf, type KnowledgeScope } from '../../../shared/identity/access-profiles.js';
import type { Principal } from '../../../shared/identity/principal.js';
import type { AccessProfileInput } from '../contracts.js';
import type { AccessProfileRow, AccessProfileStore } from './ports.js';
import { isAdmin } from './visibility.js';

/** Distinct non-empty entries. */
const clean = (l: readonly string[] | undefined): string[] => [...new Set((l ?? []).map((x) => x.trim()).filter(Boolean))];

/** The tenant's profiles, cached between pushes. */
export class AccessProfiles {
  private cached: AccessProfileRow[] | null = null;
  /** Bumped by each `replace`, so a read that started before it never caches the older list. */
  private generation = 0;

  constructor(private readonly store: AccessProfileStore, private readonly tenantId: string, private readonly now: () => Date = () => new Date()) {}

  /** Replace the tenant's list with `profiles` (the runtime's whole list). @returns how many are kept. */
  async replace(profiles: readonly AccessProfileInput[]): Promise<{ count: number; synced_at: string }> {
    const rows: AccessProfileRow[] = profiles.map((p) => ({
      id: p.id, roles: clean(p.roles), groups: clean(p.groups),
      knowledge: { audiences: clean(p.knowledge?.audiences), tags: clean(p.knowledge?.tags) },
    }));
    const at = this.now().toISOString();
    this.generation++;
    await this.store.replace(this.tenantId, rows, at);
    this.generation++;
    this.cached = rows;
    return { count: rows.length, synced_at: at };
  }

  /** The knowledge scope of `p`: null when not narrowed (an admin, or no applying profile names knowledge). */
  async scopeOf(p: Principal): Promise<KnowledgeScope | null> {
    if (isAdmin(p)) return null;
    let rows = this.cached;
    if (!rows) {
      const gen = this.generation;
      rows = await this.store.list(this.tenantId);
      if (gen === this.generation) this.cached = rows;
    }
    return knowledgeScopeOf(rows, p);
  }
}
