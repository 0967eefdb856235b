/**
 * The gateway serves the built renderer at `/` (headless mode): files with types and a CSP,
 * client-side routes fall back to index.html, missing assets 404, no path escapes the directory,
 * and /v1 stays the API.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from '../../services/gateway/src/index.js';
import { startIssuer } from '../helpers/issuer.js';
import { startUpstream } from '../helpers/upstream.js';
import { gatewayConfig } from '../helpers/gateway-config.js';

test('renderer files, SPA fallback, CSP, 404 for missing assets, no traversal', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-renderer-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>svc</title>');
  writeFileSync(join(dir, 'assets', 'app-1.js'), 'console.log(1)');
  const up = await startUpstream();
  const issuer = await startIssuer();
  const gw = await start(gatewayConfig(up.url, issuer.jwksUrl, { rendererDir: dir }));
  t.after(async () => { await gw.close(); await up.close(); await issuer.close(); });
  const base = `http://127.0.0.1:${gw.port}`;

  const index = await fetch(`${base}/`);
  assert.equal(index.status, 200);
  assert.match(index.headers.get('content-type') ?? '', /text\/html/);
  assert.match(index.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  assert.match(await index.text(), /<title>svc<\/title>/);

  const js = await fetch(`${base}/assets/app-1.js`);
  assert.equal(js.status, 200);
  assert.match(js.headers.get('content-type') ?? '', /javascript/);
  assert.match(js.headers.get('cache-control') ?? '', /immutable/);
  const again = await fetch(`${base}/assets/app-1.js`, { headers: { 'if-none-match': js.headers.get('etag')! } });
  assert.equal(again.status, 304);

  const route = await fetch(`${base}/receipts/01ABC`);
  assert.equal(route.status, 200);
  assert.match(await route.text(), /<title>svc<\/title>/);

  assert.equal((await fetch(`${base}/assets/missing.js`)).status, 404);
  assert.equal((await fetch(`${base}/..%2f..%2fetc%2fpasswd.txt`)).status, 404);
  const api = await fetch(`${base}/v1/sessions`);
  assert.equal(api.status, 401, '/v1 stays behind the bearer chain');
});
