/**
 * Audience routes (spec "Knowledge"): list (any user: the upload form offers them), upsert and
 * member changes (admin only; the gateway's admin guard covers /v1/admin/*, not this path, so the
 * service checks the role itself).
 */
import type { FastifyInstance } from 'fastify';
import { requirePrincipal } from '../../../shared/http/server.js';
import { ADMIN_ROLES } from '../domain/knowledge-service.js';
import { AppError } from '../../../shared/http/errors.js';
import type { FastifyRequest } from 'fastify';
import type { KnowledgeContext } from './context.js';

const TAG_PARAM = { type: 'object', required: ['audience_tag'], properties: { audience_tag: { type: 'string', minLength: 1, maxLength: 64 } } } as const;

function requireAdmin(req: FastifyRequest): void {
  const p = requirePrincipal(req);
  if (!p.roles.some((r) => ADMIN_ROLES.includes(r))) throw new AppError(403, 'admin_required', 'audience administration needs the admin role');
}

/** Register the audience routes. */
export function audienceRoutes(ctx: KnowledgeContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/v1/knowledge/admin/audiences', async (req) => { requirePrincipal(req); return ctx.svc.listAudiences(); });
    app.put<{ Params: { audience_tag: string }; Body: { description?: string | null } | undefined }>('/v1/knowledge/admin/audiences/:audience_tag', {
      schema: { params: TAG_PARAM, body: { type: ['object', 'null'], properties: { tenant_id: { type: 'string' }, description: { type: ['string', 'null'], maxLength: 2000 } } } },
    }, async (req) => {
      requireAdmin(req);
      return ctx.svc.upsertAudience(req.params.audience_tag, req.body?.description ?? null);
    });
    app.put<{ Params: { audience_tag: string }; Body: { user_ids: string[] } }>('/v1/knowledge/admin/audiences/:audience_tag/members', {
      schema: {
        params: TAG_PARAM,
        body: { type: 'object', required: ['user_ids'], properties: { tenant_id: { type: 'string' }, audience_tag: { type: 'string' }, user_ids: { type: 'array', maxItems: 100_000, items: { type: 'string', minLength: 1, maxLength: 256 } } } },
      },
    }, async (req) => {
      requireAdmin(req);
      return ctx.svc.setMembers(req.params.audience_tag, req.body.user_ids);
    });
    app.get<{ Params: { audience_tag: string } }>('/v1/knowledge/admin/audiences/:audience_tag/members', { schema: { params: TAG_PARAM } }, async (req) => {
      requireAdmin(req);
      return ctx.svc.members(req.params.audience_tag);
    });
  };
}
