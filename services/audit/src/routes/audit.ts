/**
 * Audit log routes (spec "Audit and receipts"):
 * - `POST /v1/audit` -> 201 `AuditAppendResponse`; 400 `tenant_missing` when the principal lacks
 *   tenant_id; 400 `invalid_request` on a bad body. Rows go to the pinned tenant whatever the body says.
 * - `GET /v1/admin/audit` (admin) query user_id, action, limit (1-500, default 50), offset -> 200
 *   `{items: AuditRowView[], next_cursor?}` newest first; `next_cursor` is the next offset.
 * - `GET /v1/admin/audit/verify` (admin) query tenant_id (required), limit -> 200 `{ok, checked, failures}`.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../shared/http/errors.js';
import { requirePrincipal, requireRole } from '../../../shared/http/server.js';
import type { AuditAppendRequest, AuditAppendResponse, AuditRowView } from '../contracts.js';
import { verifyChain } from '../domain/chain-verify.js';
import { redactSecrets } from '../domain/redact.js';
import type { AuditRowRecord } from '../store/audit-store.js';
import { chainHash, type Json } from '../verifier/format.js';
import { nodeHashProvider } from '../domain/keys.js';
import type { AuditContext } from './context.js';

const nullableString = (max: number) => ({ type: ['string', 'null'], maxLength: max });

const APPEND_BODY = {
  type: 'object',
  required: ['action'],
  properties: {
    tenant_id: { type: ['string', 'null'] },
    user_id: nullableString(256),
    action: { type: 'string', minLength: 1, maxLength: 200 },
    resource_type: nullableString(200),
    resource_id: nullableString(512),
    detail_type: nullableString(200),
    detail: { type: 'object' },
    result: {},
    agent_id: nullableString(256),
    agent_chain: { type: ['array', 'null'] },
    delegated_by: nullableString(256),
  },
} as const;

const APPEND_RESPONSE = {
  201: {
    type: 'object',
    properties: {
      id: { type: 'integer' }, seq: { type: 'integer' }, tenant_id: { type: 'string' }, timestamp: { type: 'string' }, key_version: { type: 'string' },
      signature: { type: 'string' }, previous_hash: { type: 'string' }, chain_hash: { type: 'string' },
    },
  },
} as const;

const VERIFY_RESPONSE = {
  200: {
    type: 'object',
    properties: {
      ok: { type: 'boolean' }, checked: { type: 'integer' },
      failures: {
        type: 'array',
        items: { type: 'object', properties: { check: { type: 'string' }, id: { type: ['integer', 'null'] }, seq: { type: ['integer', 'null'] }, reason: { type: 'string' } } },
      },
    },
  },
} as const;

/** Row as shown to admins (JSON columns parsed, chain_hash recomputed). */
export function rowView(r: AuditRowRecord): AuditRowView {
  return {
    id: r.id, seq: r.seq, timestamp: r.timestamp, tenant_id: r.tenant_id, user_id: r.user_id, action: r.action, resource_type: r.resource_type,
    resource_id: r.resource_id, detail_type: r.detail_type, detail: JSON.parse(r.detail) as Json, previous_hash: r.previous_hash,
    signed_payload: r.signed_payload, signature: r.signature, key_version: r.key_version,
    chain_hash: chainHash(r.id, r.previous_hash, r.signature, nodeHashProvider), agent_id: r.agent_id,
    agent_chain: r.agent_chain === null ? null : JSON.parse(r.agent_chain) as Json, delegated_by: r.delegated_by,
  };
}

/** Register the audit log routes. */
export function auditRoutes(ctx: AuditContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: AuditAppendRequest }>('/v1/audit', { schema: { body: APPEND_BODY, response: APPEND_RESPONSE } }, async (req, reply) => {
      const p = requirePrincipal(req);
      if (typeof p.tenant_id !== 'string' || p.tenant_id.length === 0) throw new AppError(400, 'tenant_missing', 'the principal carries no tenant_id');
      const b = req.body;
      let detail = redactSecrets((b.detail ?? {}) as Json) as Record<string, Json>;
      if (b.result !== undefined) detail = { ...detail, result: redactSecrets(b.result) };
      const userId = p.roles.includes('service-account') && b.user_id !== undefined ? b.user_id : p.id;
      const row = await ctx.writer.append({
        tenant_id: ctx.tenantId, user_id: userId, action: b.action, resource_type: b.resource_type ?? null, resource_id: b.resource_id ?? null,
        detail_type: b.detail_type ?? null, detail, agent_id: b.agent_id ?? null, agent_chain: (b.agent_chain ?? null) as Json,
        delegated_by: b.delegated_by ?? null,
      });
      const body: AuditAppendResponse = {
        id: row.id, seq: row.seq, tenant_id: row.tenant_id, timestamp: row.timestamp, key_version: row.key_version,
        signature: row.signature, previous_hash: row.previous_hash, chain_hash: row.chain_hash,
      };
      return reply.code(201).send(body);
    });

    app.get<{ Querystring: { user_id?: string; action?: string; limit?: number; offset?: number; tenant_id?: string } }>('/v1/admin/audit', {
      schema: {
        querystring: {
          type: 'object',
          properties: {
            user_id: { type: 'string', maxLength: 256 }, action: { type: 'string', maxLength: 200 }, tenant_id: { type: 'string' },
            limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 }, offset: { type: 'integer', minimum: 0, default: 0 },
          },
        },
      },
    }, async (req) => {
      requireRole(req, 'admin');
      const q = req.query;
      const limit = q.limit ?? 50;
      const offset = q.offset ?? 0;
      const rows = ctx.store.list({ tenantId: ctx.tenantId, userId: q.user_id, action: q.action, limit: limit + 1, offset });
      const items = rows.slice(0, limit).map(rowView);
      return rows.length > limit ? { items, next_cursor: String(offset + limit) } : { items };
    });

    app.get<{ Querystring: { tenant_id: string; limit?: number } }>('/v1/admin/audit/verify', {
      schema: {
        querystring: {
          type: 'object', required: ['tenant_id'],
          properties: { tenant_id: { type: 'string', minLength: 1, maxLength: 256 }, limit: { type: 'integer', minimum: 1 } },
        },
        response: VERIFY_RESPONSE,
      },
    }, async (req) => {
      requireRole(req, 'admin');
      return verifyChain(ctx.store, ctx.keys, req.query.tenant_id, req.query.limit);
    });

    /**
     * `POST /v1/admin/audit/turns/:turn_id/seal` (admin): seal an open turn now with seal_reason
     * `manual` (spec "Turn envelope"), e.g. a turn whose emitter died before its terminal event.
     * 200 `{turn_id, sealed: true, seal_reason: "manual"}`; 404 `turn_not_found`; 409 `already_sealed`.
     */
    app.post<{ Params: { turn_id: string } }>('/v1/admin/audit/turns/:turn_id/seal', {
      schema: { params: { type: 'object', required: ['turn_id'], properties: { turn_id: { type: 'string', minLength: 1, maxLength: 128 } } } },
    }, async (req) => {
      requireRole(req, 'admin');
      const turn = ctx.store.getTurn(ctx.tenantId, req.params.turn_id);
      if (!turn) throw new AppError(404, 'turn_not_found', `no turn ${req.params.turn_id}`);
      const sealed = await ctx.turns.sealNow(ctx.tenantId, req.params.turn_id, 'manual');
      if (!sealed) throw new AppError(409, 'already_sealed', `turn ${req.params.turn_id} is already sealed`);
      return { turn_id: req.params.turn_id, sealed: true, seal_reason: 'manual' };
    });
  };
}
