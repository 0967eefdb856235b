/**
 * `GET /v1/guard/status` (issue 16 items 1 and 2): which learned layers run — the trained n-gram
 * classifier (model, version, sha256 of its weights) and the imported encoder classifier (state,
 * model, labels, recorded sha256, why it is off). Any signed-in principal may read it; the model
 * folder and the folders searched are shown to admins only. The same facts, in their public form,
 * are on `/readyz` (`classifiers`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import { GuardStatusSchema, type GuardStatus } from '../contracts.js';

/** Options of `statusRoutes`: the status, detailed (admins) or public. */
export interface StatusRoutesOptions { status: (detailed: boolean) => GuardStatus }

/** Register the status route. */
export const statusRoutes: FastifyPluginAsyncTypebox<StatusRoutesOptions> = async (app, { status }) => {
  app.get('/v1/guard/status', { schema: { response: { 200: GuardStatusSchema } } }, async (req) => status(requirePrincipal(req).roles.includes('admin')));
};
