/**
 * `npm run serve` as a user runs it: a child process that prints `svc ready <url>`, stops cleanly on
 * SIGTERM without losing committed writes, and refuses to start under the spec's startup guards
 * with a message that says what to set.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_NAMES, portEnvName } from '../../services/shared/services.js';
import { login } from '../helpers/stack.js';

const ENTRY = join(process.cwd(), 'dist', 'main', 'headless.js');

function baseEnv(dataDir: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn', SVC_SCRYPT_N: '1024', SANDBOX_WARM_POOL: '0',
    SVC_BOOTSTRAP_ADMIN_EMAIL: 'root@example.com', SVC_BOOTSTRAP_ADMIN_PASSWORD: 'headless-admin-pw',
  };
  for (const n of SERVICE_NAMES) env[portEnvName(n)] = '0';
  return env;
}

interface Run { url: Promise<string>; exit: Promise<{ code: number | null; stderr: string }>; kill(sig: NodeJS.Signals): void }

function serve(env: Record<string, string>): Run {
  const child = spawn(process.execPath, [ENTRY], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = ''; let err = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /svc ready (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', () => reject(new Error(`exited before ready: ${err}`)));
  });
  url.catch(() => undefined);
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  const exit = new Promise<{ code: number | null; stderr: string }>((r) => child.on('exit', (code) => r({ code, stderr: err })));
  return { url, exit, kill: (sig) => child.kill(sig) };
}

test('serve prints the ready line, stops on SIGTERM with exit 0, and keeps committed writes', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-headless-'));
  const first = serve(baseEnv(dataDir));
  const url = await first.url;
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const admin = await login(url, 'root@example.com', 'headless-admin-pw');
  const r = await fetch(`${url}/v1/admin/users`, {
    method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'kept@example.com', display_name: 'Kept', password: 'kept-password', roles: ['user'] }),
  });
  assert.equal(r.status, 201);
  first.kill('SIGTERM');
  const { code } = await first.exit;
  assert.equal(code, 0);

  const second = serve(baseEnv(dataDir));
  const url2 = await second.url;
  try {
    const token = await login(url2, 'kept@example.com', 'kept-password');
    assert.ok(token.split('.').length === 3);
    // The first run's turns reached audit before shutdown: the chain verifies and is not empty.
    const adminToken = await login(url2, 'root@example.com', 'headless-admin-pw');
    const v = await fetch(`${url2}/v1/admin/audit/verify?tenant_id=default`, { headers: { authorization: `Bearer ${adminToken}` } });
    assert.equal(v.status, 200);
    const report = await v.json() as { ok: boolean; checked: number };
    assert.equal(report.ok, true);
    assert.ok(report.checked >= 1, 'the first run sealed turns into the chain');
  } finally {
    second.kill('SIGTERM');
    assert.equal((await second.exit).code, 0);
  }
});

test('startup guards refuse to start and say what to set', async () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ SVC_AUTH_ENABLED: 'false', SVC_ENV: 'production' }, /SVC_ALLOW_AUTH_DISABLED=true/],
    [{ SVC_ENV: 'prod', SVC_PRINCIPAL_KEYS: 'k'.repeat(10) + 'abcdefghijklmnopqrstuvwxyz', SVC_CAPTOKEN_KEYS: 'c'.repeat(8) + 'abcdefghijklmnopqrstuvwxyz12', AUDIT_SIGNING_KEY: 'zq8fK2mW9xLp3VbN7tRc4YhJ6gDs1EaU' }, /INTERNAL_AUTH_CLIENT_SECRET/],
    [{ SVC_PRINCIPAL_KEYS: '' }, /SVC_PRINCIPAL_KEYS/],
    [{ AUDIT_SIGNING_KEY: 'changeme' }, /AUDIT_SIGNING_KEY/],
  ];
  for (const [extra, message] of cases) {
    const run = serve({ ...baseEnv(mkdtempSync(join(tmpdir(), 'svc-guard-'))), ...extra });
    const { code, stderr } = await run.exit;
    assert.equal(code, 78, JSON.stringify(extra));
    assert.match(stderr, message);
    assert.match(stderr, /refusing to start/);
  }
});

test('SIGHUP rotates the audit signing key from key files without a restart; old and new rows verify', async () => {
  const { writeFileSync } = await import('node:fs');
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-rotate-'));
  const f = (n: string): string => join(dataDir, n);
  const k1 = 'first-key-Zx8Qm2Lw9Rt4Yp7Vn3Bc6Hd1Jf5Gs0Ka';
  const k2 = 'second-key-Pq1Wd4Ez7Rx2Tc5Yv8Ub3In6Om9Ls0Kj';
  writeFileSync(f('key'), k1); writeFileSync(f('ver'), 'v1');
  writeFileSync(f('prev'), ''); writeFileSync(f('prevver'), '');
  const env = {
    ...baseEnv(dataDir), AUDIT_SIGNING_KEY_FILE: f('key'), AUDIT_KEY_VERSION_FILE: f('ver'),
    AUDIT_SIGNING_KEY_PREVIOUS_FILE: f('prev'), AUDIT_KEY_VERSION_PREVIOUS_FILE: f('prevver'),
  };
  const run = serve(env);
  const url = await run.url;
  try {
    const admin = await login(url, 'root@example.com', 'headless-admin-pw');
    const sealedVersion = async (): Promise<string> => {
      const r = await fetch(`${url}/v1/user/me`, { headers: { authorization: `Bearer ${admin}` } });
      const turn = r.headers.get('x-svc-turn-id');
      for (let i = 0; i < 100; i++) {
        const p = await fetch(`${url}/v1/receipts/${turn}/proof`, { headers: { authorization: `Bearer ${admin}` } });
        if (p.status === 200) return (await p.json() as { envelope: { key_version: string } }).envelope.key_version;
        await new Promise((res) => setTimeout(res, 50));
      }
      throw new Error('not sealed');
    };
    assert.equal(await sealedVersion(), 'v1');
    writeFileSync(f('key'), k2); writeFileSync(f('ver'), 'v2');
    writeFileSync(f('prev'), k1); writeFileSync(f('prevver'), 'v1');
    run.kill('SIGHUP');
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(await sealedVersion(), 'v2');
    const v = await fetch(`${url}/v1/admin/audit/verify?tenant_id=default`, { headers: { authorization: `Bearer ${admin}` } });
    const report = await v.json() as { ok: boolean; checked: number };
    assert.equal(report.ok, true);
  } finally {
    run.kill('SIGTERM');
    assert.equal((await run.exit).code, 0);
  }
});
