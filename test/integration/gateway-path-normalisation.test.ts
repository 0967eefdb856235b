/**
 * Regression (issue 11, item 10 "One reading of a path"): a normal user's `GET /v1/%61dmin/approvals`
 * passed the gateway's admin guard, which matched the raw path, while the runtime saw the decoded
 * `/v1/admin/approvals`. The gateway now normalises the path once (unreserved escapes, repeated
 * slashes, dot segments; encoded slashes refused) before routing and guarding, and forwards
 * exactly the path it checked.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { start } from '../../services/gateway/src/index.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { gatewayConfig, TEST_ISSUER } from '../helpers/gateway-config.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { startUpstream, type RecordingUpstream } from '../helpers/upstream.js';

let issuer: TestIssuer;
let up: RecordingUpstream;
let gw: RunningService;
let userToken: string;
let adminToken: string;

const now = (): number => Math.floor(Date.now() / 1000);
const claims = (sub: string, roles: string[]): Record<string, unknown> => ({
  iss: TEST_ISSUER, aud: 'svc-frontend', sub, email: `${sub}@example.com`, name: sub,
  realm_access: { roles }, groups: [], iat: now(), exp: now() + 600, auth_method: 'password',
});

before(async () => {
  issuer = await startIssuer();
  up = await startUpstream();
  gw = await start(gatewayConfig(up.url, issuer.jwksUrl));
  userToken = await issuer.mint(claims('user-1', ['user']));
  adminToken = await issuer.mint(claims('admin-1', ['admin']));
});
after(async () => { await gw.close(); await up.close(); await issuer.close(); });

/** A GET with the raw request target as written (fetch's URL parser would normalise it first). */
function rawGet(target: string, token: string): Promise<{ status: number; body: { code?: string } }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: gw.port, path: target, method: 'GET', headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) as { code?: string } : {} }); });
    });
    req.on('error', reject);
    req.end();
  });
}

const proxiedPaths = (): string[] => up.seen.filter((s) => s.url !== '/v1/turns/events').map((s) => s.url);

test('a user cannot reach admin routes through another spelling of the path', async () => {
  const before = proxiedPaths().length;
  for (const target of ['/v1/%61dmin/approvals', '/v1/%41dmin/approvals'.replace('%41', '%61'), '/v1//admin/approvals', '/v1/./admin/approvals', '/v1/sessions/../admin/approvals', '/v1/sessions/%2e%2e/admin/approvals']) {
    const r = await rawGet(target, userToken);
    assert.equal(r.status, 403, target);
    assert.equal(r.body.code, 'admin_required', target);
  }
  assert.equal(proxiedPaths().length, before, 'nothing reached a service');
});

test('an encoded slash has no single reading and is refused with 400 invalid_request', async () => {
  for (const target of ['/v1/admin%2Fapprovals', '/v1%2Fadmin/approvals', '/v1/admin%5capprovals', '/auth/.well-known/..%2f..%2fv1%2fadmin']) {
    const r = await rawGet(target, adminToken);
    assert.equal(r.status, 400, target);
    assert.equal(r.body.code, 'invalid_request', target);
  }
});

test('the service receives exactly the path the gateway checked, with the query kept', async () => {
  const r = await rawGet('/v1//%61dmin/./approvals?status=pending', adminToken);
  assert.equal(r.status, 200);
  assert.equal(proxiedPaths().at(-1), '/v1/admin/approvals?status=pending');
  const s = await rawGet('/v1/sessions/%7e1', userToken);
  assert.equal(s.status, 200);
  assert.equal(proxiedPaths().at(-1), '/v1/sessions/~1');
});
