/**
 * Pure pieces of the sandbox (issue 12): path checks, tenant and owner rules, the runtime choice,
 * the hardened HostConfig, the engine address, and the mapping of runner answers to results.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDomainError } from '../../../services/shared/kit/domain-error.js';
import { checkGlobPattern, checkWorkspacePath } from '../../../services/sandbox/src/domain/paths.js';
import { callTenant, checkMayList, checkOwner } from '../../../services/sandbox/src/domain/access.js';
import { chooseRuntime } from '../../../services/sandbox/src/domain/engine.js';
import { createOptionsFor, dockerOptions, hostConfigFor, toBackendError } from '../../../services/sandbox/src/backend/docker.js';
import { artifactsOf, refusalError, runResult } from '../../../services/sandbox/src/domain/results.js';
import type { ContainerSpec } from '../../../services/sandbox/src/domain/ports.js';

function code(fn: () => unknown): string {
  try { fn(); } catch (err) { if (isDomainError(err)) return err.code; throw err; }
  return 'none';
}

test('workspace paths: absolute, NUL, .. and empty are invalid_path; relative paths pass', () => {
  for (const bad of ['/etc/passwd', '\\x', 'C:/x', '../x', 'a/../../b', 'a\\..\\b', '..', 'a\u0000b', '']) assert.equal(code(() => checkWorkspacePath(bad)), 'invalid_path', JSON.stringify(bad));
  for (const ok of ['a.txt', 'output/fig.png', 'a/..b/c', '.hidden', 'x..y']) assert.equal(checkWorkspacePath(ok), ok);
  assert.equal(code(() => checkGlobPattern('../*')), 'invalid_path');
  assert.equal(checkGlobPattern('**/*.csv'), '**/*.csv');
});

const user = { id: 'u1', tenant_id: 'acme', roles: ['user'], auth_method: 'password' as const };
const admin = { id: 'u2', tenant_id: 'acme', roles: ['admin'], auth_method: 'password' as const };
const service = { id: 'service:agent-runtime', tenant_id: 'acme', roles: ['service-account'], auth_method: 'service' as const };
const fakeService = { id: 'u3', tenant_id: 'acme', roles: ['service-account'], auth_method: 'password' as const };

test('tenant: users keep their own, services may name any', () => {
  assert.equal(callTenant(user, 'acme'), 'acme');
  assert.equal(code(() => callTenant(user, 'other')), 'tenant_mismatch');
  assert.equal(code(() => callTenant(fakeService, 'other')), 'tenant_mismatch');
  assert.equal(callTenant(service, 'other'), 'other');
});

test('owner: the creator, admins and services may use a session; other users may not; listing is for admins and services', () => {
  checkOwner(user, 'u1');
  checkOwner(admin, 'u1');
  checkOwner(service, 'u1');
  assert.equal(code(() => checkOwner(user, 'u9')), 'forbidden');
  assert.equal(code(() => checkOwner(fakeService, 'u9')), 'forbidden');
  assert.equal(code(() => checkMayList(user)), 'admin_required');
  checkMayList(admin);
  checkMayList(service);
});

test('runtime choice: auto prefers runsc, networked and GPU sessions use runc, an explicit runsc must be registered', () => {
  const runsc = [{ name: 'runc', args: [] }, { name: 'runsc', args: ['--network=none'] }];
  const base = { runtime: 'auto' as const, networkEnabled: false, gpuEnabled: false, gpuNetworkEnabled: false };
  assert.deepEqual(chooseRuntime(base, runsc), { runtime: 'runsc', network: false, note: null, problem: null });
  assert.equal(chooseRuntime(base, [{ name: 'runc', args: [] }]).runtime, 'runc');
  const net = chooseRuntime({ ...base, networkEnabled: true }, runsc);
  assert.equal(net.runtime, 'runc');
  assert.equal(net.network, true);
  assert.match(net.note ?? '', /network=none/);
  assert.equal(chooseRuntime({ ...base, networkEnabled: true }, [{ name: 'runsc', args: [] }]).runtime, 'runsc');
  assert.equal(chooseRuntime({ ...base, gpuEnabled: true }, runsc).runtime, 'runc');
  assert.equal(chooseRuntime({ ...base, gpuEnabled: true, gpuNetworkEnabled: true }, runsc).network, true);
  assert.equal(chooseRuntime({ ...base, runtime: 'runc' }, runsc).runtime, 'runc');
  assert.match(chooseRuntime({ ...base, runtime: 'runsc' }, []).problem ?? '', /no runsc/);
});

test('egress control on: networked sessions get no network (their traffic cannot go through the proxy); off changes nothing', () => {
  const engine = [{ name: 'runc', args: [] }];
  const base = { runtime: 'auto' as const, networkEnabled: true, gpuEnabled: false, gpuNetworkEnabled: false };
  for (const egressPolicy of ['observe', 'enforce'] as const) {
    const c = chooseRuntime({ ...base, egressPolicy }, engine);
    assert.equal(c.network, false);
    assert.match(c.note ?? '', new RegExp(`egress control is on \\(${egressPolicy}\\)`));
  }
  assert.equal(chooseRuntime({ ...base, egressPolicy: 'off' }, engine).network, true);
  assert.equal(chooseRuntime(base, engine).network, true);
});

const spec: ContainerSpec = {
  image: 'svc-sandbox:latest', runtime: 'runsc', labels: { 'org.svc.sandbox': '1' }, memoryBytes: 512 * 1024 * 1024, cpus: 1.5,
  pidsLimit: 128, network: false, gpu: false, tmpfsBytes: 64 * 1024 * 1024,
};

test('hardened HostConfig: no network, no capabilities, no new privileges, read-only root, limits, only the workspace volume', () => {
  const hc = hostConfigFor(spec);
  assert.equal(hc.NetworkMode, 'none');
  assert.deepEqual(hc.CapDrop, ['ALL']);
  assert.deepEqual(hc.SecurityOpt, ['no-new-privileges']);
  assert.ok(!JSON.stringify(hc).includes('unconfined'), 'default seccomp kept');
  assert.equal(hc.Privileged, false);
  assert.equal(hc.ReadonlyRootfs, true);
  assert.deepEqual(hc.Tmpfs, { '/tmp': `rw,nosuid,nodev,size=${64 * 1024 * 1024}` });
  assert.deepEqual(hc.Mounts, [{ Type: 'volume', Source: '', Target: '/workspace', ReadOnly: false }]);
  assert.deepEqual(hc.Binds, []);
  assert.deepEqual(hc.Devices, []);
  assert.equal(hc.PidsLimit, 128);
  assert.equal(hc.Memory, 512 * 1024 * 1024);
  assert.equal(hc.MemorySwap, hc.Memory);
  assert.equal(hc.NanoCpus, 1_500_000_000);
  assert.equal(hc.Runtime, 'runsc');
  assert.equal(hc.DeviceRequests, undefined);
  const gpu = hostConfigFor({ ...spec, gpu: true, network: true, runtime: 'runc' });
  assert.deepEqual(gpu.DeviceRequests, [{ Driver: '', Count: -1, Capabilities: [['gpu']], Options: {} }]);
  assert.equal(gpu.NetworkMode, 'bridge');
  const opts = createOptionsFor(spec);
  assert.equal(opts.User, '1000:1000');
  assert.equal(opts.OpenStdin, true);
  assert.equal(opts.StdinOnce, true, 'the runner exits when the service dies');
  assert.equal(opts.Tty, false);
  assert.equal(opts.NetworkDisabled, true);
  assert.deepEqual(opts.Labels, { 'org.svc.sandbox': '1' });
});

test('engine address: socket path or tcp URL; engine errors map to unavailable / image missing / failed', () => {
  assert.deepEqual(dockerOptions('/var/run/docker.sock'), { socketPath: '/var/run/docker.sock', host: undefined });
  assert.deepEqual(dockerOptions('tcp://10.0.0.2:2375'), { socketPath: undefined, host: '10.0.0.2', port: '2375', protocol: 'http' });
  assert.equal(toBackendError(Object.assign(new Error('connect ENOENT /x.sock'), { code: 'ENOENT' }), 'x').kind, 'unavailable');
  assert.equal(toBackendError(Object.assign(new Error('(HTTP code 404) no such container - No such image: a:b'), { statusCode: 404 }), 'x').kind, 'image_missing');
  assert.equal(toBackendError(Object.assign(new Error('(HTTP code 500) server error'), { statusCode: 500 }), 'x').kind, 'failed');
});

test('runner refusals keep their file codes; other codes become runner_failed', () => {
  assert.equal(refusalError({ id: '1', ok: false, code: 'path_outside_workspace', message: 'm' }, 'read').code, 'path_outside_workspace');
  assert.equal(refusalError({ id: '1', ok: false, code: 'write_failed', message: 'm' }, 'write').code, 'invalid_request');
  assert.equal(refusalError({ id: '1', ok: false, code: 'runner_error', message: 'm' }, 'read').code, 'runner_failed');
  assert.deepEqual(artifactsOf([{ name: 'output/a.png', mime: 'image/png', bytes: 3, sha256: 'a'.repeat(64) }, { name: 'x', sha256: 'bad' }]), [{ name: 'output/a.png', mime: 'image/png', bytes: 3, sha256: 'a'.repeat(64) }]);
});

test('run results: answers, a stuck call and a dead runner', () => {
  const ctx = { op: 'execute' as const, tenantId: 't', sessionId: 's', runtime: 'runc' as const, timeoutSeconds: 2, elapsedMs: 2500, lostState: false };
  const ok = runResult({ kind: 'answer', answer: { id: '1', ok: true, stdout: 'hi\n', stderr: '', exit_code: 0, error: null, timed_out: false, duration_ms: 3, artifacts: [] } }, ctx);
  assert.deepEqual(ok, { tenant_id: 't', session_id: 's', runtime: 'runc', stdout: 'hi\n', stderr: '', exit_code: 0, error: null, timed_out: false, duration_ms: 3, artifacts: [], restarted: false });
  const stuck = runResult({ kind: 'stuck' }, ctx);
  assert.equal(stuck.restarted, true);
  assert.equal(stuck.timed_out, true);
  assert.equal(stuck.error?.name, 'TimeoutError');
  assert.equal(runResult({ kind: 'stuck' }, { ...ctx, op: 'bash' }).exit_code, 124);
  const oom = runResult({ kind: 'died', exit: { exitCode: 137, oomKilled: true } }, ctx);
  assert.equal(oom.error?.name, 'MemoryError');
  assert.equal(oom.exit_code, 137);
  assert.equal(oom.restarted, true);
  assert.equal(runResult({ kind: 'answer', answer: { id: '1', ok: true, stdout: '' } }, { ...ctx, lostState: true }).restarted, true);
  assert.equal(code(() => runResult({ kind: 'answer', answer: { id: '1', ok: false, code: 'invalid_request', message: 'x' } }, ctx)), 'invalid_request');
});
