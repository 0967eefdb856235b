/**
 * Scopes and authorization (spec "Memory" > "Authorization"): a caller acts on its own user;
 * tenant admins (and service principals, `isServicePrincipal`) on any user of their tenant; platform roles across tenants.
 * A memory out of reach answers `memory_not_found`, as if absent.
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import { isServicePrincipal, type Principal } from '../../../shared/identity/principal-types.js';
import type { MemoryErrorCode, MemoryScope } from '../contracts.js';
import type { MemoryRepository, MemoryRow, StampedHeaders } from './ports.js';
import type { Scope } from './records.js';

/** Roles acting on any user of their tenant (services do too, by `isServicePrincipal`, never by a role claim). */
export const TENANT_ROLES = ['admin', 'tenant_admin'];
/** Roles acting across tenants. */
export const PLATFORM_ROLES = ['platform_admin'];

/** Who acts, in which turn, with which headers (forwarded to the memory role). */
export interface Caller { principal: Principal; turnId: string | null; headers: StampedHeaders }

function reach(p: Principal): { platform: boolean; tenantAdmin: boolean } {
  const platform = p.roles.some((r) => PLATFORM_ROLES.includes(r));
  return { platform, tenantAdmin: platform || isServicePrincipal(p) || p.roles.some((r) => TENANT_ROLES.includes(r)) };
}

/**
 * Resolve and authorise a scope: missing tenant and user are the principal's.
 * @throws DomainError `scope_forbidden` when the principal may not act there.
 */
export function resolveScope(p: Principal, s: MemoryScope | undefined): Scope {
  const tenant = s?.tenant_id || p.tenant_id;
  const user = s?.user_id || p.id;
  const { platform, tenantAdmin } = reach(p);
  if (tenant !== p.tenant_id && !platform) throw new DomainError<MemoryErrorCode>('scope_forbidden', 'memories of another tenant are out of reach');
  if (user !== p.id && !tenantAdmin) throw new DomainError<MemoryErrorCode>('scope_forbidden', 'you may act on your own memories only');
  return { tenant_id: tenant, user_id: user, agent_id: s?.agent_id || null, session_id: s?.session_id || null };
}

/**
 * A memory the caller may act on; when `s` names a tenant or user, the memory must be theirs.
 * @throws DomainError `memory_not_found` (also for memories out of reach), `scope_forbidden`.
 */
export async function ownedMemory(memories: MemoryRepository, p: Principal, id: string, s?: MemoryScope): Promise<MemoryRow> {
  const m = await memories.byId(id);
  const { platform, tenantAdmin } = reach(p);
  const ok = m && (platform || (m.tenant_id === p.tenant_id && (m.user_id === p.id || tenantAdmin)));
  if (!m || !ok) throw new DomainError<MemoryErrorCode>('memory_not_found', `no memory ${id}`);
  if (s && (s.user_id || s.tenant_id)) {
    const scope = resolveScope(p, s);
    if (scope.user_id !== m.user_id || scope.tenant_id !== m.tenant_id) throw new DomainError<MemoryErrorCode>('memory_not_found', `no memory ${id}`);
  }
  return m;
}
