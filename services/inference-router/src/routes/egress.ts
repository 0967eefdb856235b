/**
 * The egress allowlist routes (issue 19 item 6; spec: `/v1/admin/egress/*` proxies
 * `/v1/internal/egress/*`): `GET /v1/internal/egress/allowlist`, `POST /v1/internal/egress/allowlist
 * {destination}` (201), `DELETE /v1/internal/egress/allowlist/{id}` (204). Admin role.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireRole } from '../../../shared/kit/principal.js';
import { EgressAllowlistView, EgressRule, EgressRuleCreate, EgressRuleParams, NoContent } from '../contracts.js';
import type { EgressAllowlist } from '../domain/egress.js';

/** Register the allowlist routes over `allowlist`. */
export const egressRoutes: FastifyPluginAsyncTypebox<{ allowlist: EgressAllowlist }> = async (app, { allowlist }) => {
  app.get('/v1/internal/egress/allowlist', { schema: { response: { 200: EgressAllowlistView } } }, async (req) => {
    requireRole(req, 'admin');
    return allowlist.view();
  });
  app.post('/v1/internal/egress/allowlist', { schema: { body: EgressRuleCreate, response: { 201: EgressRule } } }, async (req, reply) => {
    const p = requireRole(req, 'admin');
    return reply.code(201).send(await allowlist.add(req.body.destination, p.id));
  });
  app.delete('/v1/internal/egress/allowlist/:id', { schema: { params: EgressRuleParams, response: { 204: NoContent } } }, async (req, reply) => {
    const p = requireRole(req, 'admin');
    await allowlist.remove(req.params.id, p.id);
    return reply.code(204).send();
  });
};
