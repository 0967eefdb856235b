/**
 * services/shared/log.ts (secrets never reach a log file) and services/shared/services.ts (the
 * spec's service table: names, default ports, port variables, gRPC services).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../../services/shared/log.js';
import { DEFAULT_PORTS, GRPC_SERVICES, SERVICE_NAMES, portEnvName } from '../../../services/shared/services.js';

test('createLogger: one file per service (mode 0600), secrets censored at every listed path', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
  const log = createLogger('memory', 'info', dir);
  log.info({
    req: { headers: { authorization: 'Bearer abc.def', 'x-svc-principal': 'stamp-value', cookie: 'sid=1', accept: 'json' } },
    body: { password: 'hunter2-password', api_key: 'sk-live-123', note: 'kept' },
    refresh_token: 'rt-secret-value',
  }, 'hello');
  log.debug('below the level');
  await new Promise<void>((resolve) => { log.flush(() => resolve()); });
  const file = join(dir, 'memory.log');
  // The destination writes asynchronously: wait for the line to land.
  for (let i = 0; i < 100 && !readFileSync(file, 'utf8').includes('\n'); i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const text = readFileSync(file, 'utf8');
  for (const s of ['abc.def', 'stamp-value', 'sid=1', 'hunter2-password', 'sk-live-123', 'rt-secret-value']) assert.ok(!text.includes(s), `${s} leaked`);
  interface Line { name: string; msg: string; req: { headers: Record<string, string> }; body: Record<string, string>; refresh_token: string }
  const line = JSON.parse(text.trim().split('\n')[0]!) as Line;
  assert.equal(line.name, 'memory');
  assert.equal(line.msg, 'hello');
  assert.equal(line.req.headers.authorization, '[redacted]');
  assert.equal(line.req.headers.accept, 'json');
  assert.equal(line.body.note, 'kept');
  assert.equal(line.body.password, '[redacted]');
  assert.equal(line.refresh_token, '[redacted]');
  assert.ok(!text.includes('below the level'));
});

test('createLogger(null) discards', () => {
  const log = createLogger('x', 'info', null);
  assert.equal(log.isLevelEnabled('info'), false);
});

test('the service table: eleven services, the spec ports, SVC_<NAME>_PORT, gRPC on six', () => {
  assert.equal(SERVICE_NAMES.length, 11);
  assert.equal(new Set(SERVICE_NAMES).size, 11);
  assert.deepEqual(Object.keys(DEFAULT_PORTS).sort(), [...SERVICE_NAMES].sort());
  assert.equal(DEFAULT_PORTS.gateway, 8080);
  assert.equal(DEFAULT_PORTS.auth, 8012);
  assert.equal(new Set(Object.values(DEFAULT_PORTS)).size, 11, 'no two services share a port');
  assert.equal(portEnvName('agent-runtime'), 'SVC_AGENT_RUNTIME_PORT');
  assert.equal(portEnvName('inference-router'), 'SVC_INFERENCE_ROUTER_PORT');
  assert.equal(portEnvName('gateway'), 'SVC_GATEWAY_PORT');
  assert.deepEqual([...GRPC_SERVICES].sort(), ['agent-runtime', 'audit', 'guardrail', 'knowledge', 'memory', 'sandbox']);
});
