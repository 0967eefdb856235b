/**
 * Generation routes (spec "Observability"):
 * - `POST /v1/generations` (service-account) body `GenerationInput` -> 201 `GenerationRecord`, 200 when
 *   the event_id was already stored (idempotent); 403 `service_account_required`; 400 `invalid_request`
 * - `GET /v1/generations` query filters + `limit` (1-500, default 50) + `cursor` -> `{items, next_cursor?}`
 * - `GET /v1/generations/stats` query `since`, `until` (+ the same filters) -> `GenerationStats`
 * - `GET /v1/generations/{event_id}` -> `GenerationRecord`; 404 `not_found`
 * Users without the admin or service-account role see only their own records.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, notFound } from '../../../shared/http/errors.js';
import { requirePrincipal } from '../../../shared/http/server.js';
import type { GenerationInput, GenerationStats } from '../contracts.js';
import type { ObsContext } from '../domain/context.js';
import type { GenerationFilter } from '../store/obs-store.js';

const str = (max = 256) => ({ type: 'string', maxLength: max });
const nstr = (max = 256) => ({ type: ['string', 'null'], maxLength: max });
const count = { type: 'integer', minimum: 0 };

/** JSON schema of `GenerationInput`. */
export const GENERATION_INPUT_SCHEMA = {
  type: 'object',
  required: ['event_id', 'created_at', 'requested_model', 'model', 'provider_id', 'provider_name', 'backend', 'status', 'http_status',
    'latency_ms', 'prompt_tokens', 'completion_tokens', 'total_tokens'],
  properties: {
    event_id: { type: 'string', pattern: '^[0-9A-HJKMNP-TV-Z]{26}$' },
    created_at: { type: 'string', format: 'date-time' },
    user_id: nstr(), turn_id: nstr(64), trace_id: { type: ['string', 'null'], pattern: '^[0-9a-f]{32}$' },
    span_id: { type: ['string', 'null'], pattern: '^[0-9a-f]{16}$' }, role: nstr(64),
    requested_model: str(512), model: str(512), provider_id: str(128), provider_name: str(256), backend: str(64),
    provider_version: nstr(256), deterministic: { type: 'boolean', default: false }, weight_hash: { type: ['string', 'null'], pattern: '^[0-9a-f]{64}$' },
    stream: { type: 'boolean', default: false }, status: { type: 'string', enum: ['ok', 'error', 'aborted'] }, error_code: nstr(64),
    http_status: { type: 'integer', minimum: 100, maximum: 599 }, latency_ms: { type: 'number', minimum: 0 },
    ttft_ms: { type: ['number', 'null'], minimum: 0 }, prompt_tokens: count, completion_tokens: count, total_tokens: count,
    attempts: { type: 'integer', minimum: 0, default: 1 }, cost_usd: { type: ['number', 'null'], minimum: 0 },
  },
  additionalProperties: false,
} as const;

const FILTERS = {
  model: str(512), provider_id: str(128), role: str(64), user_id: str(256), status: { type: 'string', enum: ['ok', 'error', 'aborted'] },
  since: { type: 'string', format: 'date-time' }, until: { type: 'string', format: 'date-time' },
} as const;

interface FilterQuery { model?: string; provider_id?: string; role?: string; user_id?: string; status?: string; since?: string; until?: string }

/** Whether the caller may see every user's records (admin or a service). */
export function seesAll(req: FastifyRequest): boolean {
  const p = requirePrincipal(req);
  return p.roles.includes('admin') || p.roles.includes('service-account');
}

function filterOf(ctx: ObsContext, req: FastifyRequest<{ Querystring: FilterQuery }>): Omit<GenerationFilter, 'limit'> {
  const q = req.query;
  const p = requirePrincipal(req);
  const iso = (s: string | undefined): string | undefined => (s === undefined ? undefined : new Date(s).toISOString());
  return {
    tenantId: ctx.cfg.tenantId, model: q.model, providerId: q.provider_id, role: q.role, status: q.status,
    userId: seesAll(req) ? q.user_id : p.id, since: iso(q.since), until: iso(q.until),
  };
}

/** Register the generation routes. */
export function generationRoutes(ctx: ObsContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: GenerationInput }>('/v1/generations', { schema: { body: GENERATION_INPUT_SCHEMA } }, async (req, reply) => {
      const p = requirePrincipal(req);
      if (!p.roles.includes('service-account')) throw new AppError(403, 'service_account_required', 'only services post generation records');
      if (Number.isNaN(Date.parse(req.body.created_at))) throw new AppError(400, 'invalid_request', 'created_at is not a date', { field: 'body.created_at' });
      const rec = ctx.price(req.body);
      const fresh = ctx.store.insertGeneration(rec);
      const stored = fresh ? rec : ctx.store.generation(ctx.cfg.tenantId, rec.event_id) ?? rec;
      return reply.code(fresh ? 201 : 200).send(stored);
    });

    app.get<{ Querystring: FilterQuery & { limit?: number; cursor?: string } }>('/v1/generations', {
      schema: { querystring: { type: 'object', properties: { ...FILTERS, limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 }, cursor: { type: 'string', pattern: '^[0-9A-HJKMNP-TV-Z]{26}$' } } } },
    }, async (req) => {
      const limit = req.query.limit ?? 50;
      const rows = ctx.store.listGenerations({ ...filterOf(ctx, req), before: req.query.cursor, limit: limit + 1 });
      const items = rows.slice(0, limit);
      return rows.length > limit ? { items, next_cursor: items[items.length - 1]!.event_id } : { items };
    });

    app.get<{ Querystring: FilterQuery }>('/v1/generations/stats', { schema: { querystring: { type: 'object', properties: FILTERS } } }, async (req): Promise<GenerationStats> => {
      const f = filterOf(ctx, req);
      return {
        since: f.since ?? null, until: f.until ?? null,
        totals: ctx.store.stats(f, null)[0]!,
        by_model: ctx.store.stats(f, 'model'), by_provider: ctx.store.stats(f, 'provider_name'),
        by_role: ctx.store.stats(f, 'role'), by_day: ctx.store.stats(f, 'day'),
      };
    });

    app.get<{ Params: { event_id: string } }>('/v1/generations/:event_id', {
      schema: { params: { type: 'object', properties: { event_id: { type: 'string', maxLength: 64 } } } },
    }, async (req) => {
      const rec = ctx.store.generation(ctx.cfg.tenantId, req.params.event_id);
      if (!rec || (!seesAll(req) && rec.user_id !== requirePrincipal(req).id)) throw notFound(`no generation ${req.params.event_id}`);
      return rec;
    });
  };
}
