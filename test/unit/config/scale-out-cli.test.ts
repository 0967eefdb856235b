/**
 * Issue 21 item 2: the `svc` / `npm run serve --` flags (main/cli.ts) and the scale-out slice of
 * main/config (peer URLs, REDIS_URL, bind host), and that peer URLs reach every slice's
 * `serviceUrls` (and the token URL of service tokens) while local services keep their own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCliArgs } from '../../../main/cli.js';
import { readScaleOut, peerUrlEnvName } from '../../../main/config/scale-out.js';
import { ConfigError, loadStackConfig, serviceConfigs } from '../../../main/config/index.js';
import { SERVICE_NAMES, type ServiceName } from '../../../services/shared/services.js';

test('flags: --service repeatable and comma lists, --all, --init, none = headless; bad input is refused with a message', () => {
  assert.deepEqual(parseCliArgs(['--service', 'gateway,agent-runtime', '--service=audit', '--service', 'gateway']), { mode: 'services', services: ['gateway', 'agent-runtime', 'audit'] });
  assert.deepEqual(parseCliArgs(['--all']), { mode: 'all', services: [] });
  assert.deepEqual(parseCliArgs(['--init']), { mode: 'init', services: [] });
  assert.deepEqual(parseCliArgs([]), { mode: 'headless', services: [] });
  assert.equal(parseCliArgs(['--help']).mode, 'help');
  assert.throws(() => parseCliArgs(['--service', 'nope']), /unknown service "nope"/);
  assert.throws(() => parseCliArgs(['--service']), /needs a service name/);
  assert.throws(() => parseCliArgs(['--all', '--service', 'gateway']), /one of/);
  assert.throws(() => parseCliArgs(['--verbose']), /unknown flag --verbose/);
});

test('scale-out slice: SVC_<SERVICE>_URL per service, REDIS_URL and the bind host; malformed values name the variable', () => {
  assert.equal(peerUrlEnvName('agent-runtime'), 'SVC_AGENT_RUNTIME_URL');
  assert.equal(peerUrlEnvName('inference-router'), 'SVC_INFERENCE_ROUTER_URL');
  const s = readScaleOut({ SVC_AUDIT_URL: 'http://audit:8011/', REDIS_URL: 'redis://redis:6379', SVC_SERVICE_BIND_HOST: '0.0.0.0' });
  assert.deepEqual(s.peerUrls, { audit: 'http://audit:8011' });
  assert.equal(s.redisUrl, 'redis://redis:6379');
  assert.equal(s.serviceBindHost, '0.0.0.0');
  assert.equal(s.objectStore, null);
  assert.throws(() => readScaleOut({ SVC_AUDIT_URL: 'audit:8011' }), (e: Error) => e instanceof ConfigError && /SVC_AUDIT_URL/.test(e.message));
  assert.throws(() => readScaleOut({ REDIS_URL: 'http://redis' }), /REDIS_URL/);
});

test('peer URLs reach every slice (service-token URL included); the shared Redis and object store reach the common slice', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-scale-'));
  try {
    const stack = loadStackConfig({ SVC_DATA_DIR: dataDir, SVC_ENV: 'test', REDIS_URL: 'redis://redis:6379', SVC_AUTH_URL: 'http://auth:8012', SVC_OBJECT_STORE_URL: 's3://b?endpoint=http://minio:9000' });
    const ports = Object.fromEntries(SERVICE_NAMES.map((n, i) => [n, 21000 + i])) as Record<ServiceName, number>;
    const cfgs = serviceConfigs(stack, ports, undefined, stack.scaleOut.peerUrls);
    assert.equal(cfgs['agent-runtime'].serviceUrls.auth, 'http://auth:8012');
    assert.equal(cfgs.gateway.serviceUrls['agent-runtime'], `http://127.0.0.1:${ports['agent-runtime']}`);
    assert.match(cfgs['agent-runtime'].internalAuth?.tokenUrl ?? '', /^http:\/\/auth:8012\//);
    assert.equal(cfgs['agent-runtime'].redisUrl, 'redis://redis:6379');
    assert.equal(cfgs.knowledge.objectStore?.bucket, 'b');
    // The desktop supervisor passes no peers: every URL is its own.
    assert.equal(serviceConfigs(stack, ports).gateway.serviceUrls.auth, `http://127.0.0.1:${ports.auth}`);
  } finally { rmSync(dataDir, { recursive: true, force: true }); }
});
