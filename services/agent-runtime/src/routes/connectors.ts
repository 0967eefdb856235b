/**
 * Connector administration routes (spec "Connector administration"; issue 18 item 3), admin only;
 * shapes in contracts/connectors.ts:
 * - `GET|POST /v1/admin/context/connectors`; `GET|PUT|PATCH|DELETE /v1/admin/context/connectors/{connector_id}`
 * - `POST .../{connector_id}/check`; `GET|POST .../{connector_id}/surfaces`; `GET .../{connector_id}/documents`
 * - `POST /v1/admin/context/sync {connector_id?}` -> 202 `{job_id}`; `GET /v1/admin/context/sync/{job_id}`
 * - `GET /v1/admin/connector-capabilities`, `GET /v1/admin/connector-capabilities/{kind}`
 * Errors: 403 `admin_required`, 404 `connector_not_found` / `sync_job_not_found` / `connector_kind_unknown`, 400 `connector_config_invalid`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { requireRole } from '../../../shared/kit/principal.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import {
  CapabilityListSchema, CapabilityParams, CapabilitySchema, CONNECTOR_CAPABILITIES, ConnectorCheckSchema, ConnectorCreateSchema, ConnectorDocumentListSchema,
  ConnectorIdParams, ConnectorListSchema, ConnectorPatchSchema, ConnectorViewSchema, SurfaceListSchema, SurfaceSelectSchema, SyncAcceptedSchema, SyncJobListQuery, SyncJobListSchema, SyncJobParams,
  SyncJobViewSchema, SyncRequestSchema,
} from '../contracts/connectors.js';
import { NoContent } from '../contracts.js';
import type { ConnectorAdmin } from '../domain/connectors/service.js';
import type { ConnectorSync } from '../domain/connectors/sync.js';
import type { RouteScope } from './identity.js';

/** Options of the connector routes. */
export interface ConnectorRoutesOptions extends RouteScope {
  connectors: ConnectorAdmin;
  sync: ConnectorSync;
}

/** Register the connector routes. */
export const connectorRoutes: FastifyPluginAsyncTypebox<ConnectorRoutesOptions> = async (app, { tenantId, connectors, sync }) => {
  const admin = (req: FastifyRequest): { tenant: string; owner: { id: string; roles: string[]; groups: string[] } } => {
    const p = requireRole(req, 'admin');
    return { tenant: p.tenant_id || tenantId, owner: { id: p.id, roles: [...p.roles], groups: [...p.groups] } };
  };
  const base = '/v1/admin/context/connectors';
  const byId = { params: ConnectorIdParams };

  app.get(base, { schema: { response: { 200: ConnectorListSchema } } }, async (req) => ({ connectors: await connectors.list(admin(req).tenant) }));
  app.post(base, { schema: { body: ConnectorCreateSchema, response: { 201: ConnectorViewSchema } } }, async (req, reply) => {
    const a = admin(req);
    return reply.code(201).send(await connectors.create(a.tenant, a.owner, req.body));
  });
  app.get(`${base}/:connector_id`, { schema: { ...byId, response: { 200: ConnectorViewSchema } } }, async (req) => connectors.get(admin(req).tenant, req.params.connector_id));
  app.put(`${base}/:connector_id`, { schema: { ...byId, body: ConnectorCreateSchema, response: { 200: ConnectorViewSchema } } },
    async (req) => connectors.update(admin(req).tenant, req.params.connector_id, req.body, true));
  app.patch(`${base}/:connector_id`, { schema: { ...byId, body: ConnectorPatchSchema, response: { 200: ConnectorViewSchema } } },
    async (req) => connectors.update(admin(req).tenant, req.params.connector_id, req.body, false));
  app.delete(`${base}/:connector_id`, { schema: { ...byId, response: { 204: NoContent } } }, async (req, reply) => {
    await connectors.delete(admin(req).tenant, req.params.connector_id);
    return reply.code(204).send(null);
  });
  app.post(`${base}/:connector_id/check`, { schema: { ...byId, response: { 200: ConnectorCheckSchema } } }, async (req) => connectors.check(admin(req).tenant, req.params.connector_id));
  app.get(`${base}/:connector_id/surfaces`, { schema: { ...byId, response: { 200: SurfaceListSchema } } },
    async (req) => ({ surfaces: await connectors.surfaces(admin(req).tenant, req.params.connector_id) }));
  app.post(`${base}/:connector_id/surfaces`, { schema: { ...byId, body: SurfaceSelectSchema, response: { 200: SurfaceListSchema } } },
    async (req) => ({ surfaces: await connectors.select(admin(req).tenant, req.params.connector_id, req.body.selected) }));
  app.get(`${base}/:connector_id/documents`, { schema: { ...byId, response: { 200: ConnectorDocumentListSchema } } },
    async (req) => ({ documents: await connectors.documents(admin(req).tenant, req.params.connector_id) }));

  app.post('/v1/admin/context/sync', { schema: { body: SyncRequestSchema, response: { 202: SyncAcceptedSchema } } }, async (req, reply) => {
    const job = await sync.enqueue(admin(req).tenant, req.body?.connector_id ?? null);
    return reply.code(202).send({ job_id: job.id });
  });
  app.get('/v1/admin/context/sync/:job_id', { schema: { params: SyncJobParams, response: { 200: SyncJobViewSchema } } }, async (req) => sync.job(admin(req).tenant, req.params.job_id));
  // Issue 19 item 5: the job list and cancel, aggregated by the gateway's `GET /v1/admin/jobs`.
  app.get('/v1/admin/context/sync', { schema: { querystring: SyncJobListQuery, response: { 200: SyncJobListSchema } } }, async (req) => ({ jobs: await sync.list(admin(req).tenant, req.query.limit ?? 100) }));
  app.post('/v1/admin/context/sync/:job_id/cancel', { schema: { params: SyncJobParams, response: { 200: SyncJobViewSchema } } }, async (req) => sync.cancel(admin(req).tenant, req.params.job_id));

  app.get('/v1/admin/connector-capabilities', { schema: { response: { 200: CapabilityListSchema } } }, async (req) => {
    admin(req);
    return { capabilities: [...CONNECTOR_CAPABILITIES] };
  });
  app.get('/v1/admin/connector-capabilities/:kind', { schema: { params: CapabilityParams, response: { 200: CapabilitySchema } } }, async (req) => {
    admin(req);
    const c = CONNECTOR_CAPABILITIES.find((x) => x.kind === req.params.kind);
    if (!c) throw new DomainError('connector_kind_unknown', `no connector kind "${req.params.kind}"`);
    return c;
  });
};
