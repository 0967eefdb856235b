/**
 * Regression (issue 11 item 9): the gateway answered any `Host` header, the shape of a DNS-rebinding
 * attack on a loopback app. It now answers only loopback names, the host of `SVC_PUBLIC_URL` and
 * the names in `SVC_ALLOWED_HOSTS`; any other host gets 403 `host_not_allowed` before anything else.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { start } from '../../services/gateway/src/index.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { gatewayConfig } from '../helpers/gateway-config.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { startUpstream, type RecordingUpstream } from '../helpers/upstream.js';

let issuer: TestIssuer;
let up: RecordingUpstream;
let gw: RunningService;

before(async () => {
  issuer = await startIssuer();
  up = await startUpstream();
  gw = await start(gatewayConfig(up.url, issuer.jwksUrl, { publicUrl: 'https://ws.example.org', allowedHosts: ['workstation.lan'] }));
});
after(async () => { await gw.close(); await up.close(); await issuer.close(); });

function get(path: string, host: string): Promise<{ status: number; code?: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: gw.port, path, method: 'GET', headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, code: text ? (JSON.parse(text) as { code?: string }).code : undefined }); });
    });
    req.on('error', reject);
    req.end();
  });
}

test('a foreign Host is refused before the bearer chain; nothing reaches a service', async () => {
  for (const host of ['evil.example', `evil.example:${8080}`, 'localhost.evil.example', '127.0.0.1.nip.io']) {
    const r = await get('/v1/sessions', host);
    assert.equal(r.status, 403, host);
    assert.equal(r.code, 'host_not_allowed', host);
  }
  assert.equal(up.seen.filter((s) => s.url !== '/v1/turns/events').length, 0);
});

test('loopback names, the public URL host and allowed names reach the chain (401 without a token)', async () => {
  for (const host of ['localhost:8080', `127.0.0.1:${gw.port}`, '[::1]:8080', 'ws.example.org', 'workstation.lan:8080']) {
    const r = await get('/v1/sessions', host);
    assert.equal(r.status, 401, host);
    assert.equal(r.code, 'token_missing', host);
  }
});
