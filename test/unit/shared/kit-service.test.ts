/**
 * One way to define a service (services/shared/kit/service.ts): `buildService` and
 * `serviceStart` open, start background work once listening, and close in order (server drained,
 * background stopped, closers in reverse); a failing setup or listen closes what was opened.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { basicService } from '../../../services/shared/kit/basic-service.js';
import { buildService, defineService, serviceStart } from '../../../services/shared/kit/service.js';
import { servicePrincipal, signStamp } from '../../../services/shared/identity/principal.js';
import { KEYS, commonConfig, silentLogger } from './support.js';

test('close: drains the app, stops background work, then runs closers in reverse order, once', async () => {
  const log: string[] = [];
  const def = defineService({
    name: 'sandbox',
    errors: {},
    setup: ({ app, onClose, background }) => {
      app.addHook('onClose', async () => { log.push('app closed'); });
      onClose(() => { log.push('close store A'); });
      onClose(async () => { log.push('close store B'); throw new Error('B failed'); });
      onClose(() => { log.push('close client C'); });
      background('pump', () => { log.push('start pump'); return () => { log.push('stop pump'); }; });
      background('sealer', () => { log.push('start sealer'); return async () => { log.push('stop sealer'); }; });
      background('one-shot', () => { log.push('start one-shot'); });
    },
  });
  const built = await buildService(def, commonConfig(), {}, { logger: silentLogger() });
  assert.deepEqual(log, [], 'nothing starts before startBackground');
  built.startBackground();
  built.startBackground();
  assert.deepEqual(log, ['start pump', 'start sealer', 'start one-shot'], 'background work starts once, in declaration order');
  const first = built.close();
  const second = built.close();
  await Promise.all([first, second]);
  assert.deepEqual(log, [
    'start pump', 'start sealer', 'start one-shot',
    'app closed', 'stop sealer', 'stop pump',
    'close client C', 'close store B', 'close store A',
  ], 'a failing closer does not stop the ones before it');
  await built.close();
  assert.equal(log.length, 9, 'a second close runs nothing again');
});

test('startBackground after close starts nothing', async () => {
  let started = 0;
  const built = await buildService(defineService({ name: 'sandbox', errors: {}, setup: ({ background }) => { background('w', () => { started++; }); } }), commonConfig(), {}, { logger: silentLogger() });
  await built.close();
  built.startBackground();
  assert.equal(started, 0);
});

test('a setup that throws closes what it had opened (reverse order) and rethrows', async () => {
  const log: string[] = [];
  const boom = new Error('store migration failed');
  const def = defineService({
    name: 'sandbox',
    errors: {},
    setup: ({ onClose, background }) => {
      onClose(() => { log.push('close A'); });
      onClose(() => { log.push('close B'); });
      background('never', () => { log.push('started'); });
      throw boom;
    },
  });
  await assert.rejects(buildService(def, commonConfig(), {}, { logger: silentLogger() }), (err) => err === boom);
  assert.deepEqual(log, ['close B', 'close A']);
});

test('a plugin failing at ready() closes what setup had opened', async () => {
  const log: string[] = [];
  const def = defineService({
    name: 'sandbox',
    errors: {},
    setup: ({ app, onClose }) => {
      onClose(() => { log.push('closed'); });
      void app.register(async () => { throw new Error('plugin boom'); });
    },
  });
  await assert.rejects(buildService(def, commonConfig(), {}, { logger: silentLogger() }), /plugin boom/);
  assert.deepEqual(log, ['closed']);
});

test('setup receives cfg, runtime and a logger; bodyLimit may depend on the config', async () => {
  const seen: unknown[] = [];
  const cfg = commonConfig();
  const runtime = { clock: () => 42 };
  const def = defineService<typeof cfg, typeof runtime>({
    name: 'sandbox',
    errors: {},
    bodyLimit: (c) => (c.tenantId === 'acme' ? 64 : 1024),
    setup: ({ cfg: c, runtime: rt, logger, app }) => {
      seen.push(c, rt.clock(), typeof logger.info);
      app.post('/echo', { config: { public: true } }, async (req) => req.body);
    },
  });
  const built = await buildService(def, cfg, runtime, { logger: silentLogger() });
  try {
    assert.deepEqual(seen, [cfg, 42, 'function']);
    const small = await built.app.inject({ method: 'POST', url: '/echo', payload: { a: 1 } });
    assert.equal(small.statusCode, 200);
    const big = await built.app.inject({ method: 'POST', url: '/echo', payload: { a: 'x'.repeat(100) } });
    assert.equal(big.statusCode, 413);
    assert.equal(big.json().code, 'payload_too_large');
  } finally { await built.close(); }
});

test('serviceStart: listens on an ephemeral port, starts background work once listening, closes everything', async () => {
  const log: string[] = [];
  let listeningAtStart: boolean | null = null;
  let runtimeSeen: unknown;
  const def = defineService<ReturnType<typeof commonConfig>, { tag?: string }>({
    name: 'sandbox',
    errors: {},
    setup: ({ app, runtime, onClose, background }) => {
      runtimeSeen = runtime;
      onClose(() => { log.push('closed store'); });
      background('timer', () => { listeningAtStart = app.server.listening; return () => { log.push('stopped timer'); }; });
    },
  });
  const start = serviceStart(def);
  const running = await start(commonConfig());
  try {
    assert.ok(running.port > 0);
    assert.equal(listeningAtStart, true);
    assert.deepEqual(runtimeSeen, {}, 'no runtime: an empty one');
    const r = await fetch(`http://127.0.0.1:${running.port}/healthz`);
    assert.deepEqual(await r.json(), { status: 'ok', service: 'sandbox' });
  } finally {
    await running.close();
  }
  assert.deepEqual(log, ['stopped timer', 'closed store']);
  await assert.rejects(fetch(`http://127.0.0.1:${running.port}/healthz`));
  await running.close();
  assert.equal(log.length, 2);
});

test('serviceStart: a taken port rejects after closing what setup opened; background never starts', async () => {
  const blocker: Server = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  const log: string[] = [];
  try {
    const def = defineService({
      name: 'sandbox',
      errors: {},
      setup: ({ onClose, background }) => {
        onClose(() => { log.push('closed'); });
        background('w', () => { log.push('started'); });
      },
    });
    await assert.rejects(serviceStart(def)({ ...commonConfig(), port }), /EADDRINUSE/);
    assert.deepEqual(log, ['closed']);
  } finally {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
  }
});

test('basicService: health, readiness, metrics and a clear 404 for everything else', async () => {
  const built = await buildService(basicService('dirauth'), commonConfig('dirauth'), {}, { logger: silentLogger() });
  try {
    assert.deepEqual((await built.app.inject({ method: 'GET', url: '/readyz' })).json(), { status: 'ready', service: 'dirauth' });
    const stamp = signStamp(servicePrincipal('gateway', 'acme'), KEYS);
    const none = await built.app.inject({ method: 'GET', url: '/v1/dirauth/anything', headers: { 'x-svc-principal': stamp } });
    assert.equal(none.statusCode, 404);
    assert.deepEqual(none.json(), { error: 'no route for GET /v1/dirauth/anything', code: 'not_found' });
  } finally { await built.close(); }
});
