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
import type { SessionOwners } from '../domain/owners.js';
import { peerSessions } from './owner-routing.js';

/** Options of `sessionRoutes`. */
export interface SessionRoutesOptions {
  sandbox: Sandbox;
  /** The session registry and this instance's id: the list adds the other live instances' sessions (issue 21 item 3). */
  owners?: { registry: SessionOwners; instance: string };
}

/** Register the session routes. */
export const sessionRoutes: FastifyPluginAsyncTypebox<SessionRoutesOptions> = async (app, { sandbox, owners }) => {
  /** `GET /sessions` -> 200 `SessionList` (every live instance's sessions); 403 `admin_required` for users. */
  app.get('/sessions', { schema: { response: { 200: SessionListSchema } } },
    async (req) => {
      const own = await sandbox.list(requirePrincipal(req));
      if (!owners) return own;
      const others = await peerSessions<(typeof own.sessions)[number]>(req, owners.registry, owners.instance);
      return others.length ? { ...own, sessions: [...own.sessions, ...others] } : own;
    });

  /** `DELETE /sessions/{tenant_id}/{session_id}` -> 204; 403 `admin_required`, 404 `session_not_found`. */
  app.delete('/sessions/:tenant_id/:session_id', { schema: { params: SessionParamsSchema, response: { 204: Type.Null() } } }, async (req, reply) => {
    sandbox.destroy(requireRole(req, 'admin'), req.params);
    return reply.code(204).send(null);
  });

  /** `POST /sessions/{tenant_id}/{session_id}/copy` body `CopyRequest` -> 200 `CopyResponse` (files written in order). */
  app.post('/sessions/:tenant_id/:session_id/copy', { schema: { params: SessionParamsSchema, body: CopyRequestSchema, response: { 200: CopyResponseSchema } } },
    async (req) => sandbox.copy(requirePrincipal(req), req.params, req.body));
};
