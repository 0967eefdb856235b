/**
 * Registry administration (spec "Inference router": `/v1/admin/inference/{rest}` rewritten by the
 * gateway to `/v1/internal/{rest}`, admin role; DESIGN.md bodies). Every change appends an audit row
 * (`inference.provider.created|updated|deleted`, `inference.role.updated|cleared`) and refreshes the
 * snapshot at once. Shapes and status codes: see contracts.ts.
 */
import type { FastifyInstance } from 'fastify';
import { requireRole } from '../../../shared/http/server.js';
import type { ProviderInput, RoleInput } from '../contracts.js';
import type { RouterContext } from '../domain/context.js';

const ADAPTER = { type: 'string', enum: ['chat_completions', 'responses'] } as const;
const ID_PARAM = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 128 } } } as const;
const ROLE_PARAM = { type: 'object', properties: { role: { type: 'string', minLength: 1, maxLength: 64 } } } as const;
const TARGET = {
  type: 'object', required: ['provider_id', 'model'], additionalProperties: false,
  properties: { provider_id: { type: 'string', minLength: 1, maxLength: 128 }, model: { type: 'string', minLength: 1, maxLength: 512 } },
} as const;

const PROVIDER_BODY = {
  type: 'object', required: ['name', 'base_url', 'adapter'], additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 }, base_url: { type: 'string', minLength: 1, maxLength: 2048 },
    adapter: ADAPTER, api_key: { type: ['string', 'null'], maxLength: 8192 },
  },
} as const;

const PROVIDER_PATCH = {
  type: 'object', additionalProperties: false, minProperties: 1,
  properties: PROVIDER_BODY.properties,
} as const;

const ROLE_BODY = {
  anyOf: [
    TARGET,
    { type: 'object', required: ['targets'], additionalProperties: false, properties: { targets: { type: 'array', minItems: 1, maxItems: 16, items: TARGET } } },
  ],
} as const;

/** Register the admin routes. */
export function adminRoutes(ctx: RouterContext) {
  const { registry, audit } = ctx;
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/v1/internal/providers', async (req) => {
      requireRole(req, 'admin');
      return { items: registry.list(), secret_store: registry.secretStore };
    });

    app.post<{ Body: ProviderInput }>('/v1/internal/providers', { schema: { body: PROVIDER_BODY } }, async (req, reply) => {
      const p = requireRole(req, 'admin');
      const view = await registry.create(req.body);
      await audit.record({
        action: 'inference.provider.created', resourceType: 'inference_provider', resourceId: view.id, userId: p.id,
        detail: { name: view.name, base_url: view.base_url, submitted_base_url: req.body.base_url.slice(0, 2048), adapter: view.adapter, models: view.models.length, has_api_key: view.has_api_key },
      });
      return reply.code(201).send(view);
    });

    app.get<{ Params: { id: string } }>('/v1/internal/providers/:id', { schema: { params: ID_PARAM } }, async (req) => {
      requireRole(req, 'admin');
      return registry.get(req.params.id);
    });

    const patch = async (req: { params: { id: string }; body: Partial<ProviderInput> } & Parameters<typeof requireRole>[0]) => {
      const p = requireRole(req, 'admin');
      const { view, reprobed } = await registry.update(req.params.id, req.body);
      await audit.record({
        action: 'inference.provider.updated', resourceType: 'inference_provider', resourceId: view.id, userId: p.id,
        detail: { changed: Object.keys(req.body).map((k) => (k === 'api_key' ? 'api_key' : k)), name: view.name, base_url: view.base_url, adapter: view.adapter, has_api_key: view.has_api_key, reprobed },
      });
      return view;
    };
    app.patch<{ Params: { id: string }; Body: Partial<ProviderInput> }>('/v1/internal/providers/:id', { schema: { params: ID_PARAM, body: PROVIDER_PATCH } }, async (req) => patch(req));
    app.put<{ Params: { id: string }; Body: Partial<ProviderInput> }>('/v1/internal/providers/:id', { schema: { params: ID_PARAM, body: PROVIDER_PATCH } }, async (req) => patch(req));

    app.delete<{ Params: { id: string } }>('/v1/internal/providers/:id', { schema: { params: ID_PARAM } }, async (req, reply) => {
      const p = requireRole(req, 'admin');
      const before = registry.get(req.params.id);
      const roles = await registry.remove(req.params.id);
      await audit.record({
        action: 'inference.provider.deleted', resourceType: 'inference_provider', resourceId: before.id, userId: p.id,
        detail: { name: before.name, base_url: before.base_url, roles_affected: roles },
      });
      return reply.code(204).send();
    });

    app.get<{ Params: { id: string }; Querystring: { refresh?: boolean } }>('/v1/internal/providers/:id/models', {
      schema: { params: ID_PARAM, querystring: { type: 'object', properties: { refresh: { type: 'boolean', default: false } } } },
    }, async (req) => {
      requireRole(req, 'admin');
      return { items: await registry.models(req.params.id, req.query.refresh === true) };
    });

    app.get('/v1/internal/roles', async (req) => {
      requireRole(req, 'admin');
      return { items: registry.roles() };
    });

    app.get<{ Params: { role: string } }>('/v1/internal/roles/:role', { schema: { params: ROLE_PARAM } }, async (req) => {
      requireRole(req, 'admin');
      return registry.role(req.params.role);
    });

    app.put<{ Params: { role: string }; Body: RoleInput }>('/v1/internal/roles/:role', { schema: { params: ROLE_PARAM, body: ROLE_BODY } }, async (req) => {
      const p = requireRole(req, 'admin');
      const view = registry.setRole(req.params.role, req.body);
      await audit.record({
        action: 'inference.role.updated', resourceType: 'inference_role', resourceId: view.role, userId: p.id, detail: { targets: view.targets },
      });
      return view;
    });

    app.delete<{ Params: { role: string } }>('/v1/internal/roles/:role', { schema: { params: ROLE_PARAM } }, async (req, reply) => {
      const p = requireRole(req, 'admin');
      registry.clearRole(req.params.role);
      await audit.record({ action: 'inference.role.cleared', resourceType: 'inference_role', resourceId: req.params.role, userId: p.id, detail: {} });
      return reply.code(204).send();
    });
  };
}
