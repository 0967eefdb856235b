/**
 * Rate limits over real sockets (spec: "Errors" 429; DESIGN.md gateway limits): per-IP and
 * per-tenant limits answer 429 with Retry-After; a throttled IP stays throttled after many other
 * keys were seen (the limiter store is sized not to forget it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { start } from '../../services/gateway/src/index.js';
import { startIssuer } from '../helpers/issuer.js';
import { startUpstream } from '../helpers/upstream.js';
import { gatewayConfig, TEST_ISSUER } from '../helpers/gateway-config.js';

const now = (): number => Math.floor(Date.now() / 1000);

test('per-IP limit: the request past SVC_RATE_LIMIT_IP_PER_MINUTE gets 429 with Retry-After', async (t) => {
  const up = await startUpstream();
  const issuer = await startIssuer();
  const gw = await start(gatewayConfig(up.url, issuer.jwksUrl, { rateLimitIpPerMinute: 5 }));
  t.after(async () => { await gw.close(); await up.close(); await issuer.close(); });
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) {
    const r = await request(`http://127.0.0.1:${gw.port}/v1/auth/config`);
    statuses.push(r.statusCode);
    if (r.statusCode === 429) {
      assert.ok(Number(r.headers['retry-after']) >= 1);
      assert.equal((await r.body.json() as { code: string }).code, 'rate_limited');
    } else await r.body.dump();
  }
  assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
});

test('per-tenant limit applies across users', async (t) => {
  const up = await startUpstream();
  const issuer = await startIssuer();
  const gw = await start(gatewayConfig(up.url, issuer.jwksUrl, { rateLimitTenantPerMinute: 3 }));
  t.after(async () => { await gw.close(); await up.close(); await issuer.close(); });
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const token = await issuer.mint({ iss: TEST_ISSUER, aud: 'svc-frontend', sub: `u${i}`, iat: now(), exp: now() + 600 });
    const r = await request(`http://127.0.0.1:${gw.port}/v1/sessions`, { headers: { authorization: `Bearer ${token}` } });
    statuses.push(r.statusCode);
    await r.body.dump();
  }
  assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
});

test('a throttled IP is not forgotten after 6,000 other clients were seen', async (t) => {
  const up = await startUpstream();
  const issuer = await startIssuer();
  const gw = await start(gatewayConfig(up.url, issuer.jwksUrl, { rateLimitIpPerMinute: 2, trustProxy: true }));
  t.after(async () => { await gw.close(); await up.close(); await issuer.close(); });
  const url = `http://127.0.0.1:${gw.port}/v1/auth/config`;
  const from = async (ip: string): Promise<number> => {
    const r = await request(url, { headers: { 'x-forwarded-for': ip } });
    await r.body.dump();
    return r.statusCode;
  };
  assert.equal(await from('10.9.9.9'), 200);
  assert.equal(await from('10.9.9.9'), 200);
  assert.equal(await from('10.9.9.9'), 429);
  for (let i = 0; i < 6000; i++) await from(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  assert.equal(await from('10.9.9.9'), 429, 'still throttled');
});
