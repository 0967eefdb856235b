/**
 * The gateway built by the kit (`buildService(gatewayService, cfg, runtime)`) with `inject()`:
 * the kit's health routes answer as before, the validator seam of `GatewayRuntime` is used, an
 * error answer after the turn started still carries `X-Svc-Turn-Id`, and refusals are counted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { buildService } from '../../../services/shared/kit/service.js';
import { gatewayService } from '../../../services/gateway/src/app.js';
import type { BearerValidator } from '../../../services/gateway/src/contracts.js';
import { gatewayConfig } from '../../helpers/gateway-config.js';
import { startUpstream } from '../../helpers/upstream.js';

test('health, validator seam, turn header on errors, rejection counter', async (t) => {
  const up = await startUpstream();
  const seen: string[] = [];
  const validator: BearerValidator = { validate: async (token) => { seen.push(token); return { iss: 'i', sub: 'user-1', iat: 1, exp: 2 }; } };
  const built = await buildService(gatewayService, gatewayConfig(up.url, 'http://127.0.0.1:9/jwks.json'), { validator }, { logger: pino({ level: 'silent' }) });
  t.after(async () => { await built.close(); await up.close(); });
  const { app } = built;

  assert.deepEqual((await app.inject({ url: '/healthz' })).json(), { status: 'ok', service: 'gateway' });
  const ready = await app.inject({ url: '/readyz' });
  assert.equal(ready.statusCode, 200);
  assert.equal(ready.body, '{"status":"ready","service":"gateway"}');

  const reserved = await app.inject({ url: '/v1/connectors', headers: { authorization: 'Bearer a.b.c' } });
  assert.equal(reserved.statusCode, 404);
  assert.equal(reserved.json().code, 'not_found');
  assert.match(String(reserved.headers['x-svc-turn-id']), /^[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.deepEqual(seen, ['a.b.c']);

  const proxied = await app.inject({ url: '/v1/sessions', headers: { authorization: 'Bearer a.b.c' } });
  assert.equal(proxied.statusCode, 200);
  assert.equal(proxied.headers['x-upstream'], 'yes');
  assert.equal(proxied.json().turn, proxied.headers['x-svc-turn-id']);

  const missing = await app.inject({ url: '/v1/sessions' });
  assert.equal(missing.statusCode, 401);
  assert.equal(missing.headers['x-svc-turn-id'], undefined, 'no turn before the bearer is known');
  assert.equal(missing.headers['www-authenticate'], 'Bearer');

  const metrics = (await app.inject({ url: '/metrics' })).body;
  assert.match(metrics, /svc_gateway_rejections_total\{code="not_found",service="gateway"\} 1/);
  assert.match(metrics, /svc_gateway_rejections_total\{code="token_missing",service="gateway"\} 1/);
  assert.match(metrics, /svc_gateway_requests_total\{status="200",target="agent-runtime",service="gateway"\} 1/);
  assert.doesNotMatch(metrics, /svc_http_requests_total/, 'the gateway keeps its own request counter');
});
