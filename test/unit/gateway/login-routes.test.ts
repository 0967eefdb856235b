/**
 * Where the second factor sits in the gateway's tables (issue 14): `POST /v1/auth/login` and
 * `POST /v1/auth/login/2fa` are the gateway's own public answers, the login keeps auth's body limit
 * and the 2fa step takes 4 KiB, `/dirauth/pair/*` is public (the phone has no bearer) and goes to
 * auth with its path unchanged, and the phone authenticator's routes under `/m/` fall back to
 * `mobile.html`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RouteTable } from '../../../services/gateway/src/domain/route-table.js';
import { BodyLimits } from '../../../services/gateway/src/domain/body-limits.js';
import { RendererFiles } from '../../../services/gateway/src/routes/static.js';

const table = new RouteTable();

test('login and its second factor are local, public, POST only', () => {
  const login = table.match('POST', '/v1/auth/login')!;
  assert.deepEqual(login.target, { kind: 'local', handler: 'login' });
  assert.equal(login.public, true);
  const twoFa = table.match('POST', '/v1/auth/login/2fa')!;
  assert.deepEqual(twoFa.target, { kind: 'local', handler: 'login_2fa' });
  assert.equal(twoFa.public, true);
  assert.equal(table.match('GET', '/v1/auth/login/2fa')?.pattern, '/v1/auth/*', 'other methods stay behind the bearer chain');
});

test('/dirauth/pair/* is public and proxied to auth unchanged; the admin dirauth routes are not public', () => {
  for (const [method, path] of [['POST', '/dirauth/pair/enroll'], ['GET', '/dirauth/pair/challenges'], ['POST', '/dirauth/pair/challenges/01J0000000000000000000000A/answer'], ['POST', '/dirauth/pair/refresh']] as const) {
    const r = table.match(method, path)!;
    assert.equal(r.public, true, path);
    assert.deepEqual(r.target, { kind: 'proxy', service: 'auth' }, path);
  }
  assert.equal(table.match('GET', '/v1/admin/auth/dirauth')?.public, undefined);
  assert.equal(table.match('GET', '/dirauth/pairing')?.pattern, undefined, 'only the /dirauth/pair/ prefix');
});

test("body limits: the login keeps auth's limit, the 2fa step 4 KiB, other local answers none of their own", () => {
  const l = new BodyLimits();
  assert.equal(l.local('login'), l.upstream('auth', 'POST', '/v1/auth/login'));
  assert.equal(l.local('login'), 64 * 1024);
  assert.equal(l.local('login_2fa'), 4 * 1024);
  assert.equal(l.local('status'), null);
});

test('the phone authenticator: extension-less paths under /m fall back to mobile.html; its files are served', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-renderer-m-'));
  mkdirSync(join(dir, 'm'));
  writeFileSync(join(dir, 'index.html'), 'desktop');
  writeFileSync(join(dir, 'mobile.html'), 'phone');
  writeFileSync(join(dir, 'm', 'manifest.json'), '{}');
  const files = new RendererFiles(dir);
  for (const p of ['/m', '/m/', '/m/pair', '/m/challenges/x']) assert.equal(files.lookup(p)?.body.toString(), 'phone', p);
  for (const p of ['/', '/chat', '/mobile', '/mx/y']) assert.equal(files.lookup(p)?.body.toString(), 'desktop', p);
  assert.equal(files.lookup('/m/manifest.json')?.body.toString(), '{}');
  assert.equal(files.lookup('/m/missing.png'), null);
  const noPhone = mkdtempSync(join(tmpdir(), 'svc-renderer-nom-'));
  writeFileSync(join(noPhone, 'index.html'), 'desktop');
  assert.equal(new RendererFiles(noPhone).lookup('/m/')?.body.toString(), 'desktop', 'without mobile.html the desktop page answers');
});
