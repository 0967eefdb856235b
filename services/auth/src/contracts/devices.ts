/**
 * Account devices, pairing from the desktop, recovery codes and the second-factor policy (issue 14
 * items 1, 4, 6; spec "Gateway-owned admin": `/v1/account/devices*` are served by the auth service;
 * /work/2fa-brief.md "User routes", "Admin routes"). All need a signed principal; admin routes the
 * `admin` role.
 *
 * - `POST /v1/account/devices/pairing` -> 201 `PairingCreated`; 429 `enrollment_limit`
 * - `GET /v1/account/devices/pairing/{enrollment_id}` -> `PairingStatus`; 404 `enrollment_not_found`
 * - `GET /v1/account/devices` -> `DeviceList`
 * - `PATCH /v1/account/devices/{device_id}` `DeviceRename` -> `DeviceView`; 404 `device_not_found`
 * - `DELETE /v1/account/devices/{device_id}` -> 204; 404 `device_not_found`
 * - `POST /v1/account/devices/recovery-codes` -> 201 `RecoveryCodes`; `GET` -> `RecoveryCodesStatus`
 * - `GET /v1/admin/users/{user_id}/devices` -> `DeviceList`; `DELETE /v1/admin/users/{user_id}/devices/{device_id}` -> 204
 * - `GET /v1/admin/users/second-factor` -> `SecondFactorPolicy`; `PUT` `SecondFactorPolicyUpdate` -> `SecondFactorPolicy`
 *
 * Node-free (contracts rule).
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { OrNull, StringEnum } from '../../../shared/kit/schema.js';

/** Longest device name, characters. */
export const DEVICE_NAME_MAX = 64;

/** Pending (unused, unexpired) pairings a user may hold at once. */
export const ENROLLMENT_PENDING_MAX = 5;

/** Recovery codes per set. */
export const RECOVERY_CODE_COUNT = 10;

/** Shape of a recovery code as shown: three groups of four base32 characters (RFC 4648 alphabet, lower-case). */
export const RECOVERY_CODE_PATTERN = '^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$';

/** States of a paired device (spec "States and transitions": paired mobile device). */
export const DEVICE_STATES = ['paired', 'revoked'] as const;
/** One of `DEVICE_STATES`. */
export type DeviceState = (typeof DEVICE_STATES)[number];

/** What the desktop UI sees of one of its pairings. */
export const ENROLLMENT_STATES = ['pending', 'paired', 'expired'] as const;

const Id = Type.String({ minLength: 1, maxLength: 64 });

/** A device as its user and admins see it (never its key, secret or tokens). Times RFC 3339 UTC. */
export const DeviceViewSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  created_at: Type.String(),
  last_seen_at: OrNull(Type.String()),
  state: StringEnum(DEVICE_STATES),
  revoked_at: OrNull(Type.String()),
});
/** A device. */
export type DeviceView = Static<typeof DeviceViewSchema>;

/** `GET /v1/account/devices` (and the admin twin): newest first; `enforced` = the policy applies to this user. */
export const DeviceListSchema = Type.Object({
  items: Type.Array(DeviceViewSchema),
  recovery_codes_left: Type.Integer({ minimum: 0 }),
  enforced: Type.Boolean(),
});
/** A user's devices. */
export type DeviceList = Static<typeof DeviceListSchema>;

/** `{device_id}` of `/v1/account/devices/{device_id}`. */
export const DeviceParamsSchema = Type.Object({ device_id: Id });

/** `{user_id}` of `/v1/admin/users/{user_id}/devices`. */
export const AdminUserDevicesParamsSchema = Type.Object({ user_id: Id });

/** `{user_id, device_id}` of `/v1/admin/users/{user_id}/devices/{device_id}`. */
export const AdminDeviceParamsSchema = Type.Object({ user_id: Id, device_id: Id });

/** `PATCH /v1/account/devices/{device_id}` body. */
export const DeviceRenameSchema = Type.Object({ name: Type.String({ minLength: 1, maxLength: DEVICE_NAME_MAX }) }, { additionalProperties: false });
/** Rename body. */
export type DeviceRename = Static<typeof DeviceRenameSchema>;

/**
 * `POST /v1/account/devices/pairing` answer (201): the QR code encodes `enrollment_url`
 * (`{public_url}/m/#pair?token=<enrollment token>&fp=<TLS fingerprint or empty>`); `expires_at` RFC 3339.
 */
export const PairingCreatedSchema = Type.Object({
  enrollment_id: Type.String(),
  enrollment_url: Type.String(),
  expires_at: Type.String(),
});
/** A new pairing. */
export type PairingCreated = Static<typeof PairingCreatedSchema>;

/** `{enrollment_id}` of `/v1/account/devices/pairing/{enrollment_id}`. */
export const EnrollmentParamsSchema = Type.Object({ enrollment_id: Id });

/** `GET /v1/account/devices/pairing/{enrollment_id}`: what the desktop UI polls to show "paired". */
export const PairingStatusSchema = Type.Object({
  enrollment_id: Type.String(),
  state: StringEnum(ENROLLMENT_STATES),
  device_id: OrNull(Type.String()),
});
/** A pairing's state. */
export type PairingStatus = Static<typeof PairingStatusSchema>;

/** `POST /v1/account/devices/recovery-codes` answer (201): shown once, stored only as sha256. */
export const RecoveryCodesSchema = Type.Object({ codes: Type.Array(Type.String()) });
/** A new recovery-code set. */
export type RecoveryCodes = Static<typeof RecoveryCodesSchema>;

/** `GET /v1/account/devices/recovery-codes`: unused codes left and when the set was made (null: none). */
export const RecoveryCodesStatusSchema = Type.Object({
  remaining: Type.Integer({ minimum: 0 }),
  created_at: OrNull(Type.String()),
});
/** Recovery codes left. */
export type RecoveryCodesStatus = Static<typeof RecoveryCodesStatusSchema>;

/** Where the effective policy comes from: `SVC_2FA_ENFORCED` (`env`) or an admin's setting (`admin`). */
export const POLICY_SOURCES = ['env', 'admin'] as const;

/** `GET`/`PUT /v1/admin/users/second-factor` answer. Admins are never force-enrolled whatever it says. */
export const SecondFactorPolicySchema = Type.Object({
  enforced: Type.Boolean(),
  source: StringEnum(POLICY_SOURCES),
});
/** The second-factor policy. */
export type SecondFactorPolicy = Static<typeof SecondFactorPolicySchema>;

/** `PUT /v1/admin/users/second-factor` body. */
export const SecondFactorPolicyUpdateSchema = Type.Object({ enforced: Type.Boolean() }, { additionalProperties: false });
