/**
 * The gateway swaps the user's bearer for its service token on every hop (spec "Identity headers":
 * "swapped for a service token on internal hops"; issue 15 item 4): a real gateway with
 * `internalAuth` against a test realm, in front of a recording upstream. The upstream sees
 * `Authorization: Bearer <service token of service-gateway>` beside the stamped principal, never the
 * user's token, from the very first request (no token cached yet) on; the token is fetched once.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { start } from '../../services/gateway/src/index.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { startUpstream, type RecordingUpstream } from '../helpers/upstream.js';
import { gatewayConfig, TEST_ISSUER } from '../helpers/gateway-config.js';
import { startServiceIssuer, type ServiceIssuer } from '../helpers/service-issuer.js';
import { ServiceTokenVerifier } from '../../services/shared/identity/service-token-verifier.js';
import type { RunningService } from '../../services/shared/runtime.js';

let users: TestIssuer;
let realm: ServiceIssuer;
let up: RecordingUpstream;
let gw: RunningService;
let base: string;

before(async () => {
  users = await startIssuer();
  realm = await startServiceIssuer({ clients: { 'service-gateway': 'gateway-secret-0123456789abcdef0123' } });
  up = await startUpstream();
  const cfg = gatewayConfig(up.url, users.jwksUrl, { internalAuth: realm.config('service-gateway') });
  cfg.serviceUrls = { ...cfg.serviceUrls, gateway: 'http://127.0.0.1:9' };
  gw = await start(cfg);
  base = `http://127.0.0.1:${gw.port}`;
});
after(async () => { await gw.close(); await up.close(); await users.close(); await realm.close(); });

test('the upstream gets the gateway\'s service token, never the user\'s bearer', async () => {
  const now = Math.floor(Date.now() / 1000);
  const userToken = await users.mint({ iss: TEST_ISSUER, aud: 'svc-frontend', sub: 'user-1', email: 'ana@example.com', realm_access: { roles: ['user'] }, iat: now, exp: now + 600 });
  const verifier = new ServiceTokenVerifier({ issuer: realm.issuer, jwksUrl: realm.jwksUrl, audience: 'svc-internal', allowedClients: ['service-gateway'] });
  const tokens = new Set<string>();
  await Promise.all([1, 2, 3].map(async (i) => {
    const r = await fetch(`${base}/v1/memory/search`, { method: 'POST', headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: `q${i}` }) });
    assert.equal(r.status, 200, await r.text());
  }));
  const seen = up.seen.filter((x) => x.url === '/v1/memory/search');
  assert.equal(seen.length, 3);
  for (const s of seen) {
    const auth = String(s.headers.authorization ?? '');
    assert.ok(!auth.includes(userToken), 'the user\'s bearer never travels inward');
    assert.match(auth, /^Bearer /);
    const check = await verifier.verify(auth.slice(7));
    assert.deepEqual(check.ok && check.clientId, 'service-gateway');
    assert.ok(s.headers['x-svc-principal'], 'beside the stamped principal');
    tokens.add(auth);
  }
  assert.equal(tokens.size, 1, 'one cached token for every hop');
  assert.equal(realm.issued, 1, 'fetched once (single flight, then cached)');
});
