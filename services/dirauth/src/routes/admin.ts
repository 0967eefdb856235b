/**
 * dirauth's admin routes (issue 15 item 5; contracts.ts): `GET /v1/admin/auth/dirauth` ->
 * `DirauthSettingsView` and `POST /v1/admin/auth/dirauth/test` -> `DirauthTestResult`, for the role
 * `admin` only (checked before any body is read; the gateway's admin guard stands in front too).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireRole } from '../../../shared/kit/principal.js';
import { DIRAUTH_ADMIN_PATH, DirauthSettingsViewSchema, DirauthTestResultSchema } from '../contracts.js';
import type { DirectoryAdmin } from '../domain/admin.js';

/** Register the admin routes. */
export const adminRoutes: FastifyPluginAsyncTypebox<{ admin: DirectoryAdmin }> = async (app, { admin }) => {
  app.addHook('onRequest', async (req) => { requireRole(req, 'admin'); });
  app.addHook('onSend', async (_req, reply) => { void reply.header('cache-control', 'no-store'); });

  app.get(DIRAUTH_ADMIN_PATH, { schema: { response: { 200: DirauthSettingsViewSchema } } }, async () => admin.view());

  app.post(`${DIRAUTH_ADMIN_PATH}/test`, { schema: { response: { 200: DirauthTestResultSchema } } }, async () => admin.test());
};
