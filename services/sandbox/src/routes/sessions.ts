/**
 * Session routes (spec "Code sandbox"; issue 12 "Sessions"): `GET /sessions` (admins; services may
 * list too), `DELETE /sessions/{tenant_id}/{session_id}` (admins) and
 * `POST /sessions/{tenant_id}/{session_id}/copy` (the session's owner, admins, services).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '../../../shared/kit/typebox.js';
import { requirePrincipal, requireRole } from '../../../shared/kit/principal.js';
import { CopyRequestSchema, CopyResponseSchema, SessionListSchema, SessionParamsSchema } from '../contracts.js';
import type { Sandbox } from '../domain/sandbox.js';

/** Options of `sessionRoutes`. */
export interface SessionRoutesOptions { sandbox: Sandbox }

/** Register the session routes. */
export const sessionRoutes: FastifyPluginAsyncTypebox<SessionRoutesOptions> = async (app, { sandbox }) => {
  /** `GET /sessions` -> 200 `SessionList`; 403 `admin_required` for users. */
  app.get('/sessions', { schema: { response: { 200: SessionListSchema } } },
    async (req) => sandbox.list(requirePrincipal(req)));

  /** `DELETE /sessions/{tenant_id}/{session_id}` -> 204; 403 `admin_required`, 404 `session_not_found`. */
  app.delete('/sessions/:tenant_id/:session_id', { schema: { params: SessionParamsSchema, response: { 204: Type.Null() } } }, async (req, reply) => {
    sandbox.destroy(requireRole(req, 'admin'), req.params);
    return reply.code(204).send(null);
  });

  /** `POST /sessions/{tenant_id}/{session_id}/copy` body `CopyRequest` -> 200 `CopyResponse` (files written in order). */
  app.post('/sessions/:tenant_id/:session_id/copy', { schema: { params: SessionParamsSchema, body: CopyRequestSchema, response: { 200: CopyResponseSchema } } },
    async (req) => sandbox.copy(requirePrincipal(req), req.params, req.body));
};
