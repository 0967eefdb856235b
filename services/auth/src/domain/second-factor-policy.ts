/**
 * The second-factor policy (issue 14 item 3): `SVC_2FA_ENFORCED` sets the default, an admin's
 * setting (`PUT /v1/admin/users/second-factor`) overrides it, and admins are never force-enrolled
 * (spec "Mobile-push second factor": "Admins are not force-enrolled"), so an admin can always sign
 * in to turn it off again.
 */
import type { SecondFactorPolicy } from '../contracts.js';
import type { PolicyStore } from './device-ports.js';
import type { Clock, UserRecord } from './ports.js';

/** Dependencies of `PolicyService`. */
export interface PolicyDeps {
  policy: PolicyStore;
  clock: Clock;
  /** SVC_2FA_ENFORCED. */
  envDefault: boolean;
}

/** Reads and sets the policy. */
export class PolicyService {
  constructor(private readonly deps: PolicyDeps) {}

  /** The effective policy and where it comes from. */
  async get(): Promise<SecondFactorPolicy> {
    const row = await this.deps.policy.get();
    return row ? { enforced: row.enforced, source: 'admin' } : { enforced: this.deps.envDefault, source: 'env' };
  }

  /** Set the policy on behalf of admin `adminId`. @returns the effective policy. */
  async set(enforced: boolean, adminId: string): Promise<SecondFactorPolicy> {
    await this.deps.policy.set(enforced, this.deps.clock(), adminId);
    return this.get();
  }

  /** True when `user` must have a second factor by policy (on, and not an admin). */
  async enforcedFor(user: Pick<UserRecord, 'roles'>): Promise<boolean> {
    return (await this.get()).enforced && !user.roles.includes('admin');
  }
}
