/**
 * Account devices and recovery codes (issue 14 items 4 and 6; spec "Gateway-owned admin": account
 * devices are served by the auth service) and their admin surface:
 * - `GET /v1/account/devices` -> `DeviceList`; `PATCH /v1/account/devices/{device_id}` `{name}` ->
 *   `DeviceView`; `DELETE /v1/account/devices/{device_id}` -> 204 (404 `device_not_found` for another user's);
 * - `POST /v1/account/devices/recovery-codes` -> 201 `RecoveryCodes` (`no-store`); `GET` -> `RecoveryCodesStatus`;
 * - admin role: `GET /v1/admin/users/{user_id}/devices`, `DELETE /v1/admin/users/{user_id}/devices/{device_id}` -> 204,
 *   `GET`/`PUT /v1/admin/users/second-factor` -> `SecondFactorPolicy`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal, requireRole } from '../../../shared/kit/principal.js';
import {
  AdminDeviceParamsSchema, AdminUserDevicesParamsSchema, DeviceListSchema, DeviceParamsSchema, DeviceRenameSchema, DeviceViewSchema,
  RecoveryCodesSchema, RecoveryCodesStatusSchema, SecondFactorPolicySchema, SecondFactorPolicyUpdateSchema,
} from '../contracts.js';
import type { DeviceService } from '../domain/devices.js';
import type { RecoveryCodeService } from '../domain/recovery-codes.js';
import type { PolicyService } from '../domain/second-factor-policy.js';

/** Options of `deviceRoutes`. */
export interface DeviceRoutesOptions {
  devices: DeviceService;
  codes: RecoveryCodeService;
  policy: PolicyService;
}

const noContent = { 204: { type: 'null' } } as const;

/** The admin routes: the `admin` role before the body is parsed. */
const adminDeviceRoutes: FastifyPluginAsyncTypebox<DeviceRoutesOptions> = async (admin, { devices, policy }) => {
  admin.addHook('onRequest', async (req) => { requireRole(req, 'admin'); });

  admin.get('/v1/admin/users/second-factor', { schema: { response: { 200: SecondFactorPolicySchema } } }, async () => policy.get());

  admin.put('/v1/admin/users/second-factor', { schema: { body: SecondFactorPolicyUpdateSchema, response: { 200: SecondFactorPolicySchema } } },
    async (req) => policy.set(req.body.enforced, requirePrincipal(req).id));

  admin.get('/v1/admin/users/:user_id/devices', { schema: { params: AdminUserDevicesParamsSchema, response: { 200: DeviceListSchema } } },
    async (req) => devices.adminList(req.params.user_id));

  admin.delete('/v1/admin/users/:user_id/devices/:device_id', { schema: { params: AdminDeviceParamsSchema, response: noContent } }, async (req, reply) => {
    await devices.revokeOwned(req.params.user_id, req.params.device_id, requirePrincipal(req).id, 'admin');
    return reply.code(204).send(null);
  });
};

/** Register the account device, recovery-code and admin device routes. */
export const deviceRoutes: FastifyPluginAsyncTypebox<DeviceRoutesOptions> = async (app, opts) => {
  const { devices, codes } = opts;
  app.get('/v1/account/devices', { schema: { response: { 200: DeviceListSchema } } }, async (req) => devices.list(requirePrincipal(req).id));

  app.patch('/v1/account/devices/:device_id', { schema: { params: DeviceParamsSchema, body: DeviceRenameSchema, response: { 200: DeviceViewSchema } } },
    async (req) => devices.rename(requirePrincipal(req).id, req.params.device_id, req.body.name));

  app.delete('/v1/account/devices/:device_id', { schema: { params: DeviceParamsSchema, response: noContent } }, async (req, reply) => {
    const me = requirePrincipal(req).id;
    await devices.revokeOwned(me, req.params.device_id, me, 'user');
    return reply.code(204).send(null);
  });

  app.post('/v1/account/devices/recovery-codes', { schema: { response: { 201: RecoveryCodesSchema } } }, async (req, reply) =>
    reply.code(201).headers({ 'cache-control': 'no-store', pragma: 'no-cache' }).send(await codes.generate(requirePrincipal(req).id)));

  app.get('/v1/account/devices/recovery-codes', { schema: { response: { 200: RecoveryCodesStatusSchema } } },
    async (req) => codes.status(requirePrincipal(req).id));

  await app.register(adminDeviceRoutes, opts);
};
