/**
 * Admin and internal routes of observability (spec "Observability"):
 * - `GET /v1/admin/observability/traces?limit&cursor` (admin) -> `{items: TraceSummary[], next_cursor?}`
 * - `GET /v1/admin/observability/traces/{trace_id}` (admin) -> `{trace_id, spans}`; 404 `not_found`
 * - `GET /v1/admin/observability/usage?since&until` (admin) -> `UsageReport`
 * - `GET /v1/admin/observability/budgets` (admin) -> `{items: BudgetStatus[]}`
 * - `PUT /v1/admin/observability/budgets/{tenant_id}` (admin) body `BudgetInput` -> `BudgetStatus`
 * - `GET /v1/internal/budgets/{tenant_id}` (service-account or admin) -> `BudgetStatus` (the router's check)
 * - `POST /v1/traces/spans` (service-account) body `{spans: SpanRecord[]}` (at most 1000) -> 202 `{accepted}`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal, requireRole } from '../../../shared/kit/principal.js';
import {
  BudgetInputSchema, BudgetListSchema, BudgetStatusSchema, SpanBatchAnswerSchema, SpanBatchSchema, TenantParams, TraceListQuery, TracePageSchema, TraceParams, TraceSchema,
  UsageQuery, UsageReportSchema,
} from '../contracts.js';
import type { BudgetService } from '../domain/budgets.js';
import type { TraceService } from '../domain/traces.js';

/** Options of `adminRoutes`. */
export interface AdminRoutesOptions {
  budgets: BudgetService;
  traces: TraceService;
}

/** Register the admin and internal routes. */
export const adminRoutes: FastifyPluginAsyncTypebox<AdminRoutesOptions> = async (app, { budgets, traces }) => {
  app.get('/v1/admin/observability/traces', { schema: { querystring: TraceListQuery, response: { 200: TracePageSchema } } }, async (req) => {
    requireRole(req, 'admin');
    return traces.page(req.query.limit, req.query.cursor);
  });

  app.get('/v1/admin/observability/traces/:trace_id', { schema: { params: TraceParams, response: { 200: TraceSchema } } }, async (req) => {
    requireRole(req, 'admin');
    return traces.trace(req.params.trace_id);
  });

  app.get('/v1/admin/observability/usage', { schema: { querystring: UsageQuery, response: { 200: UsageReportSchema } } }, async (req) => {
    requireRole(req, 'admin');
    return budgets.usage(req.query);
  });

  app.get('/v1/admin/observability/budgets', { schema: { response: { 200: BudgetListSchema } } }, async (req) => {
    requireRole(req, 'admin');
    return budgets.list();
  });

  app.put('/v1/admin/observability/budgets/:tenant_id', {
    schema: { params: TenantParams, body: BudgetInputSchema, response: { 200: BudgetStatusSchema } },
  }, async (req) => budgets.set(req.params.tenant_id, req.body, requireRole(req, 'admin').id));

  app.get('/v1/internal/budgets/:tenant_id', { schema: { params: TenantParams, response: { 200: BudgetStatusSchema } } }, async (req) => (
    budgets.check(requirePrincipal(req), req.params.tenant_id)
  ));

  app.post('/v1/traces/spans', { schema: { body: SpanBatchSchema, response: { 202: SpanBatchAnswerSchema } } }, async (req, reply) => (
    reply.code(202).send({ accepted: await traces.ingest(requirePrincipal(req), req.body.spans) })
  ));
};
