/**
 * Check and de-identification routes (spec "Guardrail"; DESIGN.md deidentify):
 * - `POST /v1/guard/input`, `POST /v1/guard/output` -> `GuardResult`; every check emits a
 *   `guardrail_verdict` turn event (decision, scanners that fired, rule ids, entity counts; never
 *   content), a blocked input writes a `guardrail.input.blocked` audit row (`guardrail.output.blocked`
 *   for outputs); both land before the answer.
 * - `POST /v1/guard/deidentify` -> `{deidentified, entities}`; placeholders per turn (X-Svc-Turn-Id).
 * - `POST /v1/guard/reidentify` -> `{content, replaced}`; only the owner's values are restored.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../shared/http/errors.js';
import type { Principal } from '../../../shared/identity/principal.js';
import { appendAudit } from '../clients/audit.js';
import type {
  DeidentifyRequest, DeidentifyResponse, GuardInputRequest, GuardOutputRequest, GuardResult, ReidentifyRequest, ReidentifyResponse,
} from '../contracts.js';
import { applyClassifier, runCheck } from '../domain/check.js';
import { deidentify, placeholdersIn, reidentify } from '../domain/deidentify.js';
import { ALL_ENTITY_TYPES, type EntityType } from '../domain/entities.js';
import type { ContentSource } from '../domain/injection.js';
import { findEntities } from '../domain/pii.js';
import type { GuardContext } from './context.js';
import { effectivePolicy } from './policy.js';
import { actingUser, principalFor } from './scope.js';

const MAX_CONTENT = 1_000_000;
const SCOPE = {
  type: 'object', required: ['tenant_id'],
  properties: { tenant_id: { type: 'string', minLength: 1, maxLength: 256 }, agent_id: { type: ['string', 'null'], maxLength: 256 } },
} as const;
const RESULT = {
  200: {
    type: 'object',
    properties: {
      decision: { type: 'string' }, reason: { type: 'string' }, rewritten_content: { type: ['string', 'null'] },
      scanner_results: {
        type: 'array',
        items: { type: 'object', properties: { scanner_name: { type: 'string' }, is_safe: { type: 'boolean' }, risk_score: { type: 'number' }, detail: { type: 'string' } } },
      },
    },
  },
} as const;
const USER_ID = { type: 'string', minLength: 1, maxLength: 256 } as const;

export function guardRoutes(ctx: GuardContext) {
  const { cfg, store, events } = ctx;

  async function check(req: FastifyRequest, direction: 'input' | 'output', body: GuardInputRequest & GuardOutputRequest): Promise<GuardResult> {
    const p = principalFor(req, body.scope.tenant_id);
    const tenantId = p.tenant_id || cfg.tenantId;
    const agentId = body.scope.agent_id ?? null;
    const { policy } = effectivePolicy(store, tenantId, agentId);
    const source: ContentSource = body.source ?? (direction === 'input' ? 'user' : 'model');
    const res = runCheck(body.content, { direction, source, policy, input: body.input ?? null, systemPrompt: body.system_prompt ?? null });
    const mode = policy.model_classifier.mode;
    if (mode === 'always' || (mode === 'uncertain' && res.verdict.uncertain && res.result.decision !== 'block')) {
      const verdict = await ctx.classifier.classify(body.content, direction);
      if (verdict) applyClassifier(res, verdict.risk, policy.model_classifier.threshold, verdict.label);
    }
    const userId = actingUser(p, body.user_id);
    const waits: Array<Promise<unknown>> = [];
    if (req.turnId) {
      events.emit(req.turnId, userId, 'guardrail_verdict', {
        check: direction, decision: res.result.decision, source, agent_id: agentId, scanners_fired: res.verdict.fired, blocked_by: res.verdict.blocked_by,
        rules: res.verdict.rules, entity_counts: res.verdict.entity_counts,
        risk: Object.fromEntries(res.result.scanner_results.map((s) => [s.scanner_name, s.risk_score])),
      });
      waits.push(events.deliver(cfg.deliveryTimeoutMs));
    }
    if (res.result.decision === 'block') {
      waits.push(appendAudit(cfg.serviceUrls.audit, tenantId, cfg.principalKeys, {
        user_id: userId, action: direction === 'input' ? 'guardrail.input.blocked' : 'guardrail.output.blocked', resource_type: 'turn',
        resource_id: req.turnId, agent_id: agentId,
        detail: {
          check: direction, source, blocked_by: res.verdict.blocked_by, scanners_fired: res.verdict.fired, rules: res.verdict.rules,
          entity_counts: res.verdict.entity_counts, content_length: body.content.length,
        },
      }, cfg.deliveryTimeoutMs).then((ok) => { if (!ok) ctx.logger.warn({ turn_id: req.turnId }, 'guardrail block not recorded in audit'); }));
    }
    await Promise.all(waits);
    return res.result;
  }

  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: GuardInputRequest }>('/v1/guard/input', {
      schema: {
        body: {
          type: 'object', required: ['content', 'scope'],
          properties: { content: { type: 'string', maxLength: MAX_CONTENT }, scope: SCOPE, source: { type: 'string', enum: ['user', 'document', 'tool'] }, user_id: USER_ID },
        },
        response: RESULT,
      },
    }, async (req) => check(req, 'input', req.body as GuardInputRequest & GuardOutputRequest));

    app.post<{ Body: GuardOutputRequest }>('/v1/guard/output', {
      schema: {
        body: {
          type: 'object', required: ['content', 'scope'],
          properties: {
            content: { type: 'string', maxLength: MAX_CONTENT }, scope: SCOPE, input: { type: ['string', 'null'], maxLength: MAX_CONTENT },
            system_prompt: { type: ['string', 'null'], maxLength: MAX_CONTENT }, source: { type: 'string', enum: ['model', 'document', 'tool'] }, user_id: USER_ID,
          },
        },
        response: RESULT,
      },
    }, async (req) => check(req, 'output', req.body as GuardInputRequest & GuardOutputRequest));

    app.post<{ Body: DeidentifyRequest }>('/v1/guard/deidentify', {
      schema: {
        body: {
          type: 'object', required: ['content', 'scope'],
          properties: {
            content: { type: 'string', maxLength: MAX_CONTENT }, scope: SCOPE, user_id: USER_ID,
            entities: { type: 'array', items: { type: 'string', enum: [...ALL_ENTITY_TYPES] }, maxItems: 32 },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              deidentified: { type: 'string' },
              entities: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, start: { type: 'integer' }, end: { type: 'integer' }, placeholder: { type: 'string' } } } },
            },
          },
        },
      },
    }, async (req): Promise<DeidentifyResponse> => {
      const p = principalFor(req, req.body.scope.tenant_id);
      const turnId = requireTurn(req);
      const tenantId = p.tenant_id || cfg.tenantId;
      const { policy } = effectivePolicy(store, tenantId, req.body.scope.agent_id);
      const types: EntityType[] = req.body.entities ?? [...policy.pii.entities, ...(policy.secrets.input === 'off' ? [] : ['SECRET' as const])];
      const spans = findEntities(req.body.content, { types });
      const out = store.assignPlaceholders(tenantId, turnId, actingUser(p, req.body.user_id), (mapping) => deidentify(req.body.content, spans, mapping));
      return { deidentified: out.deidentified, entities: out.entities };
    });

    app.post<{ Body: ReidentifyRequest }>('/v1/guard/reidentify', {
      schema: {
        body: { type: 'object', required: ['content'], properties: { content: { type: 'string', maxLength: MAX_CONTENT }, turn_id: { type: 'string', minLength: 1, maxLength: 64 }, user_id: USER_ID } },
        response: { 200: { type: 'object', properties: { content: { type: 'string' }, replaced: { type: 'integer' } } } },
      },
    }, async (req): Promise<ReidentifyResponse> => {
      const p: Principal = principalFor(req, null);
      const turnId = req.body.turn_id ?? requireTurn(req);
      if (!placeholdersIn(req.body.content).length) return { content: req.body.content, replaced: 0 };
      const values = store.valuesFor(p.tenant_id || cfg.tenantId, turnId, actingUser(p, req.body.user_id));
      return reidentify(req.body.content, values);
    });
  };
}

function requireTurn(req: FastifyRequest): string {
  if (!req.turnId) throw new AppError(400, 'turn_missing', 'de-identification needs the X-Svc-Turn-Id of the turn');
  return req.turnId;
}
