/**
 * The sandbox settings reader (main/config/services/sandbox.ts): defaults, sizes, the engine
 * address, and the refusals that stop a start (another backend, GPU network without GPU).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../main/config/env.js';
import { dockerEndpoint, parseMemorySize, sandboxSettings } from '../../../main/config/services/sandbox.js';

const ctx = { dataDir: '/tmp/d', repoRoot: '/tmp/r', production: false };

function refuses(fn: () => unknown, variable: string): void {
  assert.throws(fn, (err: unknown) => err instanceof ConfigError && err.message.includes(variable), `expected a ConfigError naming ${variable}`);
}

test('defaults', () => {
  assert.deepEqual(sandboxSettings({}, ctx), {
    backend: 'docker', image: 'svc-sandbox:latest', runtime: 'auto', idleTimeoutSeconds: 900, maxSessions: 50, memLimitBytes: 512 * 1024 * 1024,
    cpus: 1, pidsLimit: 128, networkEnabled: false, gpuEnabled: false, gpuNetworkEnabled: false, maxTimeoutSeconds: 300, warmPoolSize: 2,
    dockerSocket: '/var/run/docker.sock', instanceUrl: null,
  });
  assert.equal(sandboxSettings({ SANDBOX_INSTANCE_URL: 'http://sandbox-2:8006/' }, ctx).instanceUrl, 'http://sandbox-2:8006');
  refuses(() => sandboxSettings({ SANDBOX_INSTANCE_URL: 'ftp://x' }, ctx), 'SANDBOX_INSTANCE_URL');
});

test('memory sizes as Docker writes them', () => {
  assert.equal(parseMemorySize('512m'), 512 * 1024 * 1024);
  assert.equal(parseMemorySize('2G'), 2 * 1024 ** 3);
  assert.equal(parseMemorySize('1024k'), 1024 * 1024);
  assert.equal(parseMemorySize('1048576'), 1048576);
  assert.equal(parseMemorySize('512mb'), 512 * 1024 * 1024);
  assert.equal(parseMemorySize('lots'), null);
  assert.equal(parseMemorySize('1.5g'), null);
  assert.equal(sandboxSettings({ SANDBOX_MEM_LIMIT: '1g' }, ctx).memLimitBytes, 1024 ** 3);
  refuses(() => sandboxSettings({ SANDBOX_MEM_LIMIT: '1m' }, ctx), 'SANDBOX_MEM_LIMIT');
  refuses(() => sandboxSettings({ SANDBOX_MEM_LIMIT: 'huge' }, ctx), 'SANDBOX_MEM_LIMIT');
});

test('engine address from DOCKER_HOST', () => {
  assert.equal(dockerEndpoint(undefined), '/var/run/docker.sock');
  assert.equal(dockerEndpoint('unix:///run/user/1000/docker.sock'), '/run/user/1000/docker.sock');
  assert.equal(dockerEndpoint('tcp://10.0.0.2:2375'), 'tcp://10.0.0.2:2375');
  refuses(() => sandboxSettings({ DOCKER_HOST: 'ssh://me@host' }, ctx), 'DOCKER_HOST');
});

test('refusals: another backend, GPU network without GPU, a bad runtime, out-of-range numbers', () => {
  refuses(() => sandboxSettings({ SANDBOX_BACKEND: 'remote' }, ctx), 'SANDBOX_BACKEND');
  refuses(() => sandboxSettings({ SANDBOX_GPU_NETWORK_ENABLED: 'true' }, ctx), 'SANDBOX_GPU_NETWORK_ENABLED');
  assert.equal(sandboxSettings({ SANDBOX_GPU_NETWORK_ENABLED: 'true', SANDBOX_GPU_ENABLED: 'true' }, ctx).gpuNetworkEnabled, true);
  refuses(() => sandboxSettings({ SANDBOX_RUNTIME: 'kata' }, ctx), 'SANDBOX_RUNTIME');
  assert.equal(sandboxSettings({ SANDBOX_RUNTIME: 'RUNC' }, ctx).runtime, 'runc');
  refuses(() => sandboxSettings({ SANDBOX_MAX_SESSIONS: '0' }, ctx), 'SANDBOX_MAX_SESSIONS');
  refuses(() => sandboxSettings({ SANDBOX_CPUS: '0' }, ctx), 'SANDBOX_CPUS');
  refuses(() => sandboxSettings({ SANDBOX_IMAGE: 'bad image' }, ctx), 'SANDBOX_IMAGE');
  assert.equal(sandboxSettings({ SANDBOX_CPUS: '0.5', SANDBOX_WARM_POOL: '0' }, ctx).cpus, 0.5);
});
