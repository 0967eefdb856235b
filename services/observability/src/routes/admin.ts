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
import type { FastifyInstance } from 'fastify';
import { AppError, notFound } from '../../../shared/http/errors.js';
import { requirePrincipal, requireRole } from '../../../shared/http/server.js';
import type { BudgetInput, UsageReport } from '../contracts.js';
import type { SpanRecord } from '../client.js';
import type { ObsContext } from '../domain/context.js';

const SPAN_SCHEMA = {
  type: 'object',
  required: ['trace_id', 'span_id', 'service', 'name', 'kind', 'start_time', 'duration_ms', 'status'],
  properties: {
    trace_id: { type: 'string', pattern: '^[0-9a-f]{32}$' }, span_id: { type: 'string', pattern: '^[0-9a-f]{16}$' },
    parent_span_id: { type: ['string', 'null'], pattern: '^[0-9a-f]{16}$' }, service: { type: 'string', maxLength: 64 },
    name: { type: 'string', maxLength: 256 }, kind: { type: 'string', enum: ['server', 'client', 'internal'] },
    start_time: { type: 'string', format: 'date-time' }, duration_ms: { type: 'number', minimum: 0 },
    status: { type: 'string', enum: ['ok', 'error'] },
    attributes: { type: 'object', maxProperties: 64, additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] } },
  },
} as const;

const TENANT_PARAM = { type: 'object', properties: { tenant_id: { type: 'string', minLength: 1, maxLength: 256 } } } as const;
const limitUsd = { type: ['number', 'null'], minimum: 0 } as const;

/** Register the admin and internal routes. */
export function adminRoutes(ctx: ObsContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Querystring: { limit?: number; cursor?: string } }>('/v1/admin/observability/traces', {
      schema: { querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 }, cursor: { type: 'string', format: 'date-time' } } } },
    }, async (req) => {
      requireRole(req, 'admin');
      const limit = req.query.limit ?? 50;
      const rows = ctx.store.traces(limit + 1, req.query.cursor);
      const items = rows.slice(0, limit);
      return rows.length > limit ? { items, next_cursor: items[items.length - 1]!.start_time } : { items };
    });

    app.get<{ Params: { trace_id: string } }>('/v1/admin/observability/traces/:trace_id', {
      schema: { params: { type: 'object', properties: { trace_id: { type: 'string', pattern: '^[0-9a-f]{32}$' } } } },
    }, async (req) => {
      requireRole(req, 'admin');
      const spans = ctx.store.trace(req.params.trace_id);
      if (spans.length === 0) throw notFound(`no trace ${req.params.trace_id}`);
      return { trace_id: req.params.trace_id, spans };
    });

    app.get<{ Querystring: { since?: string; until?: string } }>('/v1/admin/observability/usage', {
      schema: { querystring: { type: 'object', properties: { since: { type: 'string', format: 'date-time' }, until: { type: 'string', format: 'date-time' } } } },
    }, async (req): Promise<UsageReport> => {
      requireRole(req, 'admin');
      const since = req.query.since ? new Date(req.query.since).toISOString() : undefined;
      const until = req.query.until ? new Date(req.query.until).toISOString() : undefined;
      const f = { tenantId: ctx.cfg.tenantId, since, until };
      return {
        tenant_id: ctx.cfg.tenantId, since: since ?? null, until: until ?? null, totals: ctx.store.stats(f, null)[0]!,
        by_user: ctx.store.stats(f, 'user_id'), by_model: ctx.store.stats(f, 'model'),
        budget: ctx.store.budget(ctx.cfg.tenantId) ? ctx.budgetStatus(ctx.cfg.tenantId) : null,
      };
    });

    app.get('/v1/admin/observability/budgets', async (req) => {
      requireRole(req, 'admin');
      const tenants = new Set([ctx.cfg.tenantId, ...ctx.store.budgets().map((b) => b.tenant_id)]);
      return { items: [...tenants].sort().map((t) => ctx.budgetStatus(t)) };
    });

    app.put<{ Params: { tenant_id: string }; Body: BudgetInput }>('/v1/admin/observability/budgets/:tenant_id', {
      schema: {
        params: TENANT_PARAM,
        body: {
          type: 'object', required: ['period'], additionalProperties: false,
          properties: { period: { type: 'string', enum: ['day', 'month'] }, soft_limit_usd: limitUsd, hard_limit_usd: limitUsd },
        },
      },
    }, async (req) => {
      const p = requireRole(req, 'admin');
      const b = req.body;
      const soft = b.soft_limit_usd ?? null; const hard = b.hard_limit_usd ?? null;
      if (soft !== null && hard !== null && soft > hard) throw new AppError(400, 'invalid_request', 'soft_limit_usd must not exceed hard_limit_usd', { field: 'body.soft_limit_usd' });
      ctx.store.setBudget({ tenant_id: req.params.tenant_id, period: b.period, soft_limit_usd: soft, hard_limit_usd: hard, updated_at: new Date().toISOString(), updated_by: p.id });
      return ctx.budgetStatus(req.params.tenant_id);
    });

    app.get<{ Params: { tenant_id: string } }>('/v1/internal/budgets/:tenant_id', { schema: { params: TENANT_PARAM } }, async (req) => {
      const p = requirePrincipal(req);
      if (!p.roles.includes('service-account') && !p.roles.includes('admin')) throw new AppError(403, 'service_account_required', 'budget status is for services and admins');
      return ctx.budgetStatus(req.params.tenant_id);
    });

    app.post<{ Body: { spans: SpanRecord[] } }>('/v1/traces/spans', {
      schema: { body: { type: 'object', required: ['spans'], properties: { spans: { type: 'array', maxItems: 1000, items: SPAN_SCHEMA } } } },
    }, async (req, reply) => {
      const p = requirePrincipal(req);
      if (!p.roles.includes('service-account')) throw new AppError(403, 'service_account_required', 'only services post spans');
      const spans = req.body.spans.map((s) => ({ ...s, parent_span_id: s.parent_span_id ?? null, start_time: new Date(s.start_time).toISOString(), attributes: s.attributes ?? {} }));
      return reply.code(202).send({ accepted: ctx.store.insertSpans(spans) });
    });
  };
}
