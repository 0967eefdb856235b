/**
 * Service tokens (issue 15 item 4): the source's caching, single flight, retry and refusal; the
 * verifier's checks (signature, issuer, audience, client, allow-list, expiry) and its cache; the
 * outbound interceptor; the kit's inbound check. Against a real local issuer (test/helpers/service-issuer.ts).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { ServiceTokenError, ServiceTokenSource } from '../../../services/shared/identity/service-token.js';
import { ServiceTokenVerifier } from '../../../services/shared/identity/service-token-verifier.js';
import { installServiceTokens, uninstallServiceTokens } from '../../../services/shared/identity/service-token-dispatch.js';
import { startServiceIssuer } from '../../helpers/service-issuer.js';
import { buildService, defineService } from '../../../services/shared/kit/service.js';
import { commonConfig, silentLogger } from './support.js';

const SECRET = 'memory-secret-0123456789abcdef0123456789';
const issuer = await startServiceIssuer({ clients: { 'service-memory': SECRET, 'service-audit': 'audit-secret-0123456789abcdef0123', 'svc-web-password': 'web-secret-0123456789abcdef0123456' } });
after(() => issuer.close());

const source = (over: Partial<ConstructorParameters<typeof ServiceTokenSource>[0]> = {}): ServiceTokenSource =>
  new ServiceTokenSource({ tokenUrl: issuer.tokenUrl, clientId: 'service-memory', clientSecret: SECRET, ...over });
const verifier = (allowed: string[] | null = null, clock?: () => number): ServiceTokenVerifier =>
  new ServiceTokenVerifier({ issuer: issuer.issuer, jwksUrl: issuer.jwksUrl, audience: 'svc-internal', allowedClients: allowed, ...(clock ? { clock } : {}) });

test('the source caches the token until a minute before expiry, one request for concurrent callers', async () => {
  let now = Date.now();
  const s = source({ clock: () => now });
  assert.equal(s.peek(), null);
  const [a, b, c] = await Promise.all([s.get(), s.get(), s.get()]);
  assert.equal(s.fetches, 1, 'single flight');
  assert.ok(a === b && b === c);
  assert.equal(s.peek(), a);
  now += 500_000; // 8m20s of a 10-minute token: still fresh
  assert.equal(await s.get(), a);
  assert.equal(s.fetches, 1);
  now += 50_000; // 9m10s: inside the last minute, refreshed
  assert.equal(s.peek(), null);
  await s.get();
  assert.equal(s.fetches, 2);
  s.invalidate();
  assert.equal(s.peek(), null);
});

test('a wrong secret fails at once; an IdP not up yet is retried until it answers', async () => {
  const bad = source({ clientSecret: 'wrong-secret-0123456789abcdef0123' });
  await assert.rejects(bad.get(), (e: ServiceTokenError) => e instanceof ServiceTokenError && !e.retryable && /401/.test(e.message) && !e.message.includes('wrong-secret'));
  assert.equal(bad.fetches, 1);
  // A port that refuses first, then answers through the issuer.
  let calls = 0;
  const flaky = source({
    firstDelayMs: 10,
    fetch: (async (url: string, init: RequestInit) => {
      calls++;
      if (calls < 3) throw new TypeError('fetch failed: ECONNREFUSED');
      return fetch(url, init);
    }) as typeof fetch,
  });
  const tok = await flaky.get();
  assert.equal(calls, 3);
  assert.equal((await verifier().verify(tok)).ok, true);
  const dead = source({ tokenUrl: 'http://127.0.0.1:9/token', firstDelayMs: 10, deadlineMs: 100 });
  await assert.rejects(dead.get(), (e: ServiceTokenError) => e.retryable);
});

test('the verifier checks signature, issuer, audience, client and allow-list', async () => {
  const v = verifier();
  const good = await source().get();
  assert.deepEqual(await v.verify(good), { ok: true, clientId: 'service-memory', exp: JSON.parse(Buffer.from(good.split('.')[1]!, 'base64url').toString()).exp });
  const reason = async (t: string, vv = v): Promise<string> => { const r = await vv.verify(t); return r.ok ? 'ok' : r.reason; };
  assert.equal(await reason(await issuer.mint({ client_id: 'service-memory', sub: 'service-memory', aud: 'svc-frontend' })), 'audience');
  assert.equal(await reason(await issuer.mint({ client_id: 'service-memory', iss: 'http://evil.example/realms/svc' })), 'issuer');
  assert.equal(await reason(await issuer.foreign({ client_id: 'service-memory' })), 'signature');
  assert.equal(await reason(await issuer.mint({ sub: 'user-1' })), 'client', 'a token without client_id');
  assert.equal(await reason(await issuer.mint({ client_id: 'svc-web-password', sub: 'svc-web-password' })), 'not_allowed', 'not a service client');
  assert.equal(await reason(await issuer.mint({ client_id: 'service-memory', sub: 'service-audit' })), 'client', 'subject and client disagree');
  assert.equal(await reason(await issuer.mint({ client_id: 'service-memory' }, -10)), 'expired');
  assert.equal(await reason('not.a.jwt'), 'malformed');
  const onlyAudit = verifier(['service-audit']);
  assert.equal(await reason(good, onlyAudit), 'not_allowed');
  const auditTok = await source({ clientId: 'service-audit', clientSecret: 'audit-secret-0123456789abcdef0123' }).get();
  assert.equal(await reason(auditTok, onlyAudit), 'ok');
});

test('successful verifications are cached until the token expires', async () => {
  let now = Math.floor(Date.now() / 1000);
  const v = verifier(null, () => now);
  const tok = await issuer.mint({ client_id: 'service-memory', sub: 'service-memory' }, 60);
  assert.equal(v.cached(tok), null);
  assert.equal((await v.verify(tok)).ok, true);
  assert.equal(v.cached(tok)?.clientId, 'service-memory');
  now += 61;
  assert.equal(v.cached(tok), null, 'an expired token leaves the cache');
  assert.equal((await v.verify(tok)).ok, false);
});

test('the interceptor adds the token to sibling origins only, and never replaces an Authorization', async () => {
  const seen: Array<{ path: string; auth: string | undefined }> = [];
  const srv = createServer((req, res) => { seen.push({ path: req.url ?? '', auth: req.headers.authorization }); res.end('{}'); });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const sib = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  const s = source();
  installServiceTokens({ memory: sib, gateway: issuer.url }, s);
  try {
    await (await fetch(`${sib}/v1/a`)).text();
    await (await request(`${sib}/v1/b`)).body.text();
    await (await request(`${sib}/v1/c`, { headers: { authorization: 'Basic abc' } })).body.text();
    await (await fetch(`${sib}/idp/realms/svc/x`)).text();
    const token = await s.get();
    assert.deepEqual(seen, [
      { path: '/v1/a', auth: `Bearer ${token}` },
      { path: '/v1/b', auth: `Bearer ${token}` },
      { path: '/v1/c', auth: 'Basic abc' },
      { path: '/idp/realms/svc/x', auth: undefined },
    ]);
    assert.equal(s.fetches, 1, 'one token for every hop');
  } finally {
    uninstallServiceTokens(s);
    srv.closeAllConnections();
    srv.close();
  }
  // Uninstalled: nothing is added.
  const srv2 = createServer((req, res) => { seen.push({ path: req.url ?? '', auth: req.headers.authorization }); res.end(); });
  await new Promise<void>((r) => srv2.listen(0, '127.0.0.1', r));
  await (await fetch(`http://127.0.0.1:${(srv2.address() as AddressInfo).port}/after`)).text();
  assert.equal(seen.at(-1)?.auth, undefined);
  srv2.closeAllConnections();
  srv2.close();
});

test('the kit refuses a service route without a valid token, leaves health, metrics and open prefixes alone', async () => {
  const def = defineService({
    name: 'auth', errors: {}, serviceAuthOpenPrefixes: ['/idp/realms/svc/'],
    setup: ({ app }) => {
      app.get('/v1/thing', { config: { public: true } }, async (req) => ({ caller: req.serviceClient }));
      app.get('/idp/realms/svc/certs', { config: { public: true } }, async () => ({ keys: [] }));
    },
  });
  const built = await buildService(def, { ...commonConfig(), internalAuth: issuer.config('service-memory', ['service-audit']) }, {}, { logger: silentLogger() });
  try {
    const get = async (url: string, authorization?: string): Promise<{ status: number; code?: string; caller?: string }> => {
      const r = await built.app.inject({ method: 'GET', url, headers: authorization ? { authorization } : {} });
      const b = r.json() as { code?: string; caller?: string };
      return { status: r.statusCode, ...(b.code ? { code: b.code } : {}), ...(b.caller ? { caller: b.caller } : {}) };
    };
    assert.deepEqual(await get('/v1/thing'), { status: 401, code: 'service_token_missing' });
    assert.deepEqual(await get('/v1/thing?x=1', 'Token abc'), { status: 401, code: 'service_token_invalid' });
    assert.deepEqual(await get('/nowhere'), { status: 401, code: 'service_token_missing' }, 'an unknown path says nothing about routes');
    assert.deepEqual(await get('/v1/thing', `Bearer ${await source().get()}`), { status: 401, code: 'service_token_invalid' }, 'memory is not on the list');
    const audit = await source({ clientId: 'service-audit', clientSecret: 'audit-secret-0123456789abcdef0123' }).get();
    assert.deepEqual(await get('/v1/thing', `bearer ${audit}`), { status: 200, caller: 'service-audit' });
    assert.equal((await built.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    assert.equal((await built.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 200);
    assert.deepEqual(await get('/idp/realms/svc/certs'), { status: 200 }, 'the IdP authenticates its own clients');
    assert.equal((await built.app.inject({ method: 'GET', url: '/v1/thing', headers: { authorization: `Bearer ${audit}` } })).headers['www-authenticate'], undefined);
    assert.match(String((await built.app.inject({ method: 'GET', url: '/v1/thing' })).headers['www-authenticate']), /^Bearer /);
  } finally {
    await built.close();
  }
});
