/**
 * A user's paired devices (issue 14 item 6; spec "Gateway-owned admin": account devices served by
 * the auth service): list with name, created, last seen; rename; revoke; the admin's list and
 * revoke of any user's devices.
 *
 * Revoking (by the user, an admin, or a replayed refresh token) marks the device `revoked`, clears
 * its live refresh jti (no refresh works any more), records a revocation of its session (the mobile
 * access tokens carry `sid` = the device id, so the gateway refuses them too), and is audited and
 * notified. A revoked device's proofs and answers are refused with `device_revoked`; challenges it
 * did not answer stay as they are.
 */
import { DomainError, notFoundError } from '../../../shared/kit/domain-error.js';
import type { DeviceList, DeviceView } from '../contracts.js';
import type { DeviceRecord, DeviceStore, RecoveryCodeStore, SecurityEvents } from './device-ports.js';
import type { Clock, RevocationStore, Transactor, UserStore } from './ports.js';
import type { PolicyService } from './second-factor-policy.js';

/** Dependencies of `DeviceService`. */
export interface DeviceDeps {
  devices: DeviceStore;
  users: UserStore;
  codes: RecoveryCodeStore;
  revocations: RevocationStore;
  policy: PolicyService;
  events: SecurityEvents;
  tx: Transactor;
  clock: Clock;
}

/** Why a device was revoked (audit detail). */
export type RevokeReason = 'user' | 'admin' | 'refresh_reused';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A device as users and admins see it. */
export function toDeviceView(d: DeviceRecord): DeviceView {
  return {
    id: d.id, name: d.name, created_at: new Date(d.created_at).toISOString(), last_seen_at: iso(d.last_seen_at),
    state: d.state, revoked_at: iso(d.revoked_at),
  };
}

/** Lists, renames and revokes devices. */
export class DeviceService {
  constructor(private readonly deps: DeviceDeps) {}

  /** The devices of `userId`, newest first, with recovery codes left and whether the policy applies. */
  async list(userId: string): Promise<DeviceList> {
    const user = await this.deps.users.byId(userId);
    return {
      items: (await this.deps.devices.byUser(userId)).map(toDeviceView),
      recovery_codes_left: (await this.deps.codes.status(userId)).remaining,
      enforced: user ? await this.deps.policy.enforcedFor(user) : false,
    };
  }

  /** An admin's view of another user's devices. @throws DomainError `not_found` for an unknown user. */
  async adminList(userId: string): Promise<DeviceList> {
    if (!await this.deps.users.byId(userId)) throw notFoundError('user not found');
    return this.list(userId);
  }

  /**
   * Rename a device of `userId` (trimmed, 1-64 characters).
   * @throws DomainError `device_not_found`, `invalid_request`.
   */
  async rename(userId: string, deviceId: string, name: string): Promise<DeviceView> {
    const device = await this.owned(userId, deviceId);
    const trimmed = name.trim();
    if (trimmed.length === 0) throw new DomainError('invalid_request', 'name must not be blank', { extra: { field: 'body.name' } });
    await this.deps.devices.rename(device.id, trimmed);
    return toDeviceView({ ...device, name: trimmed });
  }

  /**
   * Revoke a device of `userId` on behalf of `actorId` (the user or an admin). Revoking a revoked
   * device changes nothing. @throws DomainError `device_not_found`.
   */
  async revokeOwned(userId: string, deviceId: string, actorId: string, reason: 'user' | 'admin'): Promise<void> {
    await this.revoke(await this.owned(userId, deviceId), actorId, reason);
  }

  /** Revoke `device` (see the file header). @returns true when it was paired until now. */
  async revoke(device: DeviceRecord, actorId: string, reason: RevokeReason): Promise<boolean> {
    const now = this.deps.clock();
    const changed = await this.deps.tx(async () => {
      if (!await this.deps.devices.revoke(device.id, now)) return false;
      await this.deps.revocations.record(device.user_id, device.id, now);
      return true;
    });
    if (!changed) return false;
    this.deps.events.audit({
      action: reason === 'refresh_reused' ? 'auth.device.refresh_reused' : 'auth.device.revoked',
      user_id: device.user_id, resource_type: 'device', resource_id: device.id,
      detail: { device_id: device.id, device_name: device.name, reason, actor_id: actorId },
    });
    this.deps.events.notify({
      user_id: device.user_id, kind: 'device_revoked',
      title: `Device "${device.name}" was revoked`,
      body: reason === 'refresh_reused'
        ? 'Its sign-in token was used twice, which means it may have been copied; it can no longer approve sign-ins. Pair it again if it is yours.'
        : 'It can no longer approve sign-ins or show offline codes that work.',
      payload: { device_id: device.id, reason },
      idempotency_key: `device_revoked:${device.id}`,
    });
    return true;
  }

  private async owned(userId: string, deviceId: string): Promise<DeviceRecord> {
    const device = await this.deps.devices.byId(deviceId);
    if (!device || device.user_id !== userId) throw new DomainError('device_not_found', 'no such device');
    return device;
  }
}
