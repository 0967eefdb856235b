/**
 * The `svc-health` and `svc-metrics` plugins (services/shared/kit/health.ts, metrics.ts):
 * `/healthz`, `/readyz` with its check and detail extension points, `/metrics` with the service label.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import client from 'prom-client';
import type { LightMyRequestResponse } from 'fastify';
import { buildService, defineService, type ServiceContext } from '../../../services/shared/kit/service.js';
import type { CommonServiceConfig } from '../../../services/shared/config.js';
import { commonConfig, silentLogger } from './support.js';

/** Build a service with `setup`, hand `run` a GET injector, close it. */
async function withService(
  setup: (ctx: ServiceContext<CommonServiceConfig, object>) => void | Promise<void>,
  run: (get: (url: string) => Promise<LightMyRequestResponse>) => Promise<void>,
  name: CommonServiceConfig['service'] = 'sandbox',
): Promise<void> {
  const built = await buildService(defineService({ name, errors: {}, setup }), commonConfig(name), {}, { logger: silentLogger() });
  try { await run((url) => built.app.inject({ method: 'GET', url })); } finally { await built.close(); }
}

test('/healthz answers ok with the service name', async () => {
  await withService(() => {}, async (get) => {
    const r = await get('/healthz');
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { status: 'ok', service: 'sandbox' });
  }, 'sandbox');
});

test('/readyz: ready when every check passes, with the details merged in order', async () => {
  let dense = false;
  await withService(({ app }) => {
    app.health.check(() => true);
    app.health.check(async () => true as const);
    app.health.detail(() => ({ dense_enabled: dense, dense_reason: dense ? null : 'no model' }));
    app.health.detail(async () => ({ dense_reason: 'overridden by the later detail' }));
  }, async (get) => {
    assert.deepEqual((await get('/readyz')).json(), { status: 'ready', service: 'knowledge', dense_enabled: false, dense_reason: 'overridden by the later detail' });
    dense = true;
    assert.equal((await get('/readyz')).json().dense_enabled, true, 'details are read per request');
  }, 'knowledge');
});

test('/readyz: the first failing check answers 503 not_ready with its reason; later checks do not run', async () => {
  let ready: true | string = 'store not open';
  let laterRan = 0;
  await withService(({ app }) => {
    app.health.check(() => true);
    app.health.check(() => ready);
    app.health.check(() => { laterRan++; return 'second reason'; });
  }, async (get) => {
    const r = await get('/readyz');
    assert.equal(r.statusCode, 503);
    assert.deepEqual(r.json(), { error: 'store not open', code: 'not_ready' });
    assert.equal(laterRan, 0);
    ready = true;
    const r2 = await get('/readyz');
    assert.equal(r2.statusCode, 503);
    assert.deepEqual(r2.json(), { error: 'second reason', code: 'not_ready' });
    assert.equal(laterRan, 1);
  });
});

test('/metrics: Prometheus text labelled with the service, custom collectors, request counter', async () => {
  await withService(({ app }) => {
    new client.Gauge({ name: 'test_custom_gauge', help: 'a custom collector', registers: [app.metrics] }).set(7);
  }, async (get) => {
    await get('/healthz');
    const r = await get('/metrics');
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    assert.match(r.body, /test_custom_gauge\{service="memory"\} 7/);
    assert.match(r.body, /svc_http_requests_total\{method="GET",status="200",service="memory"\} [1-9]/);
    assert.match(r.body, /process_cpu_user_seconds_total\{service="memory"\}/, 'default metrics on');
  }, 'memory');
});

test('/metrics: default metrics and the request counter can be switched off', async () => {
  const built = await buildService(defineService({ name: 'gateway', errors: {}, defaultMetrics: false, countRequests: false, principal: false, setup: () => {} }), commonConfig('gateway'), {}, { logger: silentLogger() });
  try {
    await built.app.inject({ method: 'GET', url: '/healthz' });
    const body = (await built.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.doesNotMatch(body, /process_cpu_user_seconds_total/);
    assert.doesNotMatch(body, /svc_http_requests_total/);
  } finally { await built.close(); }
});
