/** The app:// handler: renderer files with CSP, SPA fallback, confinement, API proxy to the gateway. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appProtocolHandler, resolveAppUrl } from '../../../main/app/protocol.js';

function renderer(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-app-proto-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>svc</title>');
  writeFileSync(join(dir, 'assets', 'app-1.js'), 'console.log(1)');
  writeFileSync(join(dir, '..', 'secret.txt'), 'nope');
  return dir;
}

test('resolveAppUrl: files, client routes, API, refusals', () => {
  const dir = '/r';
  assert.deepEqual(resolveAppUrl('app://svc/', dir), { kind: 'file', path: '/r/index.html', type: 'text/html; charset=utf-8' });
  assert.equal((resolveAppUrl('app://svc/chat/01ABC', dir) as { path: string }).path, '/r/index.html');
  assert.equal((resolveAppUrl('app://svc/assets/a.js', dir) as { type: string }).type, 'text/javascript; charset=utf-8');
  assert.deepEqual(resolveAppUrl('app://svc/v1/receipts?limit=5', dir), { kind: 'api', pathAndQuery: '/v1/receipts?limit=5' });
  assert.deepEqual(resolveAppUrl('app://svc/idp/realms/svc/protocol/openid-connect/token', dir), { kind: 'api', pathAndQuery: '/idp/realms/svc/protocol/openid-connect/token' });
  assert.equal(resolveAppUrl('app://svc/idpx/a.js', dir).kind, 'file');
  assert.deepEqual(resolveAppUrl('app://other/', dir), { kind: 'refused', status: 403 });
  assert.deepEqual(resolveAppUrl('https://svc/', dir), { kind: 'refused', status: 403 });
  // The URL parser already folds dot segments; an encoded slash is decoded after it and confined here.
  assert.equal((resolveAppUrl('app://svc/%2e%2e/secret.txt', dir) as { path: string }).path, '/r/secret.txt');
  assert.deepEqual(resolveAppUrl('app://svc/..%2fsecret.txt', dir), { kind: 'refused', status: 403 });
  assert.deepEqual(resolveAppUrl('app://svc/assets/..%2f..%2fsecret.txt', dir), { kind: 'refused', status: 403 });
  assert.deepEqual(resolveAppUrl('app://svc/a%00.js', dir), { kind: 'refused', status: 400 });
  assert.deepEqual(resolveAppUrl('app://svc/%E0%A4%A', dir), { kind: 'refused', status: 400 });
  assert.deepEqual(resolveAppUrl('app://svc/..%5csecret.txt', dir), { kind: 'refused', status: 400 });
});

test('handler serves files with the CSP header and proxies /v1 to the gateway', async () => {
  const dir = renderer();
  const seen: Array<{ url: string; init: RequestInit }> = [];
  const h = appProtocolHandler({
    rendererDir: dir, gatewayUrl: 'http://127.0.0.1:8080/',
    fetch: async (url, init) => { seen.push({ url, init }); return new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json', 'x-svc-turn-id': 'T1' } }); },
  });
  const index = await h(new Request('app://svc/chat/abc'));
  assert.equal(index.status, 200);
  assert.match(index.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  assert.match(await index.text(), /<title>svc/);
  const js = await h(new Request('app://svc/assets/app-1.js'));
  assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal((await h(new Request('app://svc/assets/missing.js'))).status, 404);
  assert.equal((await h(new Request('app://svc/..%2fsecret.txt'))).status, 403);
  assert.equal((await h(new Request('app://svc/index.html', { method: 'POST', body: 'x' }))).status, 405);

  const api = await h(new Request('app://svc/v1/auth/login?x=1', {
    method: 'POST', body: '{"username":"a"}', headers: { 'content-type': 'application/json', origin: 'app://svc', authorization: 'Bearer t', cookie: 'c=1' },
  }));
  assert.equal(api.status, 200);
  assert.equal(api.headers.get('x-svc-turn-id'), 'T1');
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.url, 'http://127.0.0.1:8080/v1/auth/login?x=1');
  const hdrs = seen[0]!.init.headers as Headers;
  assert.equal(hdrs.get('authorization'), 'Bearer t');
  assert.equal(hdrs.get('origin'), null);
  assert.equal(hdrs.get('cookie'), null);
  assert.equal(seen[0]!.init.redirect, 'manual');
  assert.equal(await new Response(seen[0]!.init.body as ReadableStream).text(), '{"username":"a"}');
});

test('handler answers 502 with the spec body when the gateway is down', async () => {
  const h = appProtocolHandler({ rendererDir: renderer(), gatewayUrl: 'http://127.0.0.1:1', fetch: async () => { throw new Error('ECONNREFUSED'); } });
  const r = await h(new Request('app://svc/v1/user/me'));
  assert.equal(r.status, 502);
  assert.equal(await r.text(), '{"error":"service unavailable"}');
});
