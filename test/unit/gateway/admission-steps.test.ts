/**
 * The admission steps (services/gateway/src/plugins/admission-steps.ts) on their own: each refusal
 * is a DomainError with the spec's code, status (through the gateway's error table) and headers;
 * a turn starts with a ULID and `turn_started`, and ends with `turn_sealed` or `turn_failed`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyReply, FastifyRequest } from 'fastify';
import client from 'prom-client';
import type { TurnEventClient } from '../../../services/shared/events/turn-events.js';
import { isDomainError, statusOf } from '../../../services/shared/kit/domain-error.js';
import { GATEWAY_ERRORS } from '../../../services/gateway/src/contracts.js';
import { anonymousIdentity, stampIdentity } from '../../../services/gateway/src/domain/identity.js';
import { AdmissionSteps, type Limiter } from '../../../services/gateway/src/plugins/admission-steps.js';
import { gatewayConfig } from '../../helpers/gateway-config.js';

const cfg = gatewayConfig('http://127.0.0.1:9', 'http://127.0.0.1:9/jwks.json');
const settings = { tenantId: cfg.tenantId, principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys, adminEmailAllowlist: [], groupRoleMap: {} };

function setup(over: { authEnabled?: boolean; exceeded?: boolean } = {}) {
  const emitted: Array<{ type: string; payload: Record<string, unknown> }> = [];
  const events = { emit: (_t: string, _p: string, type: string, payload: Record<string, unknown>) => { emitted.push({ type, payload }); return 'id'; }, commitDurable: () => null } as unknown as TurnEventClient;
  const limiter = (async () => (over.exceeded
    ? { isAllowed: false, isExceeded: true, ttlInSeconds: 0, max: 5, key: 'k', timeWindow: 60_000, remaining: 0, ttl: 0, isBanned: false }
    : { isAllowed: true, key: 'k' })) as unknown as Limiter;
  const registry = new client.Registry();
  const counters = {
    answered: new client.Counter({ name: 'a_total', help: 'a', labelNames: ['status', 'target'], registers: [registry] }),
    rejected: new client.Counter({ name: 'r_total', help: 'r', labelNames: ['code'], registers: [registry] }),
  };
  const steps = new AdmissionSteps({ cfg: { ...cfg, authEnabled: over.authEnabled ?? true }, settings, events, counters, ipLimiter: limiter, tenantLimiter: limiter });
  return { steps, emitted, registry };
}

const req = (headers: Record<string, string> = {}, method = 'GET'): FastifyRequest => ({ headers, method, raw: { destroyed: false } }) as unknown as FastifyRequest;
function reply(statusCode = 200): FastifyReply & { sent: Record<string, string> } {
  const sent: Record<string, string> = {};
  return { sent, statusCode, raw: { writableFinished: true }, header(k: string, v: string) { sent[k] = v; return this; } } as unknown as FastifyReply & { sent: Record<string, string> };
}

function refusal(fn: () => unknown, code: string, status: number): Record<string, string> | undefined {
  try { fn(); } catch (err) {
    assert.ok(isDomainError(err), String(err));
    assert.equal(err.code, code);
    assert.equal(statusOf(GATEWAY_ERRORS, err.code), status);
    return err.headers as Record<string, string> | undefined;
  }
  assert.fail(`expected ${code}`);
}

test('begin keeps a well-formed correlation id and replaces anything else', () => {
  const { steps } = setup();
  const r1 = reply();
  assert.equal(steps.begin(req({ 'x-correlation-id': 'abc-1' }), r1).correlationId, 'abc-1');
  assert.equal(r1.sent['x-correlation-id'], 'abc-1');
  const r2 = reply();
  const st = steps.begin(req({ 'x-correlation-id': 'bad id!' }), r2);
  assert.match(st.correlationId, /^[0-9a-f-]{36}$/);
  assert.equal(r2.sent['x-correlation-id'], st.correlationId);
});

test('size, tenant, bearer and admin refusals', () => {
  const { steps } = setup();
  refusal(() => steps.checkBodySize(req({ 'content-length': String(cfg.maxRequestBodyBytes + 1) })), 'payload_too_large', 413);
  steps.checkBodySize(req({ 'content-length': String(cfg.maxRequestBodyBytes) }));
  refusal(() => steps.pinTenant(req({ 'x-tenant-id': 'other' })), 'tenant_mismatch', 403);
  steps.pinTenant(req({ 'x-tenant-id': cfg.tenantId }));
  assert.deepEqual(refusal(() => steps.bearerToken(req()), 'token_missing', 401), { 'www-authenticate': 'Bearer' });
  assert.deepEqual(refusal(() => steps.bearerToken(req({ authorization: 'Basic abc' })), 'token_invalid', 401), { 'www-authenticate': 'Bearer error="invalid_token"' });
  assert.equal(steps.bearerToken(req({ authorization: 'bearer  tok.en.x ' })), 'tok.en.x');
  const user = stampIdentity({ iss: 'i', sub: 'u', iat: 1, exp: 2 }, settings);
  refusal(() => steps.guardAdmin('/v1/admin/users', user), 'admin_required', 403);
  refusal(() => steps.guardAdmin('/v1/admin', user), 'admin_required', 403);
  steps.guardAdmin('/v1/administrator', user);
  steps.guardAdmin('/v1/admin/users', anonymousIdentity(settings));
});

test('dev mode: no bearer needed, the anonymous principal', () => {
  const { steps } = setup({ authEnabled: false });
  assert.equal(steps.bearerToken(req()), null);
  assert.equal(steps.anonymousIdentity().principal.id, 'anonymous');
});

test('an exceeded limit is 429 rate_limited with Retry-After of at least one second', async () => {
  const { steps } = setup({ exceeded: true });
  await assert.rejects(steps.limitIp(req()), (err: unknown) => {
    assert.ok(isDomainError(err) && err.code === 'rate_limited');
    assert.deepEqual(err.headers, { 'retry-after': '1', 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0' });
    assert.match(err.message, /^per-IP rate limit exceeded/);
    return true;
  });
  await assert.rejects(steps.limitTenant(req()), /per-tenant rate limit exceeded/);
  await setup().steps.limitIp(req());
});

test('a turn starts with a ULID and turn_started, and ends sealed or failed', async () => {
  const { steps, emitted, registry } = setup();
  const r = reply();
  const rq = req({}, 'POST');
  const st = steps.begin(rq, r);
  const rule = steps.matchRoute('POST', '/v1/chat')!;
  st.rule = rule;
  st.identity = stampIdentity({ iss: 'i', sub: 'u', iat: 1, exp: 2 }, settings);
  steps.startTurn(rq, r, st, '/v1/chat', rule, st.identity);
  assert.match(st.turnId!, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.equal(r.sent['x-svc-turn-id'], st.turnId);
  assert.deepEqual(emitted[0], { type: 'turn_started', payload: { method: 'POST', path: '/v1/chat', route: '/v1/*', correlation_id: st.correlationId } });
  steps.endTurn(rq, reply(200), st);
  // Each turn ends once (issue 11 item 7): a second ending is a second turn's.
  steps.endTurn(rq, reply(502), { ...st, turnEnd: 'open' });
  assert.deepEqual(emitted.slice(1).map((e) => [e.type, e.payload.status]), [['turn_sealed', 200], ['turn_failed', 502]]);
  assert.match(await registry.metrics(), /a_total\{status="502",target="agent-runtime"\} 1/);
});
