/**
 * The desktop shell's RFC 8252 loopback sign-in (issue 15 item 1): the authorization URL (PKCE S256,
 * state, nonce, the 127.0.0.1 redirect), the callback checks, and the whole round trip against a
 * stand-in token endpoint that checks the verifier against the challenge, with a forged redirect
 * ignored on the way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  LoopbackError, codeExchangeBody, loopbackRedirectUri, newLoopbackRequest, parseLoopbackCallback, pkceChallenge, signInWithLoopback,
} from '../../../main/app/loopback-sign-in.js';

test('the authorization URL carries PKCE S256, state, nonce and the loopback redirect', () => {
  const r = newLoopbackRequest('http://127.0.0.1:8000', 51234);
  const u = new URL(r.url);
  assert.equal(`${u.origin}${u.pathname}`, 'http://127.0.0.1:8000/idp/realms/svc/protocol/openid-connect/auth');
  assert.equal(u.searchParams.get('client_id'), 'svc-frontend');
  assert.equal(u.searchParams.get('response_type'), 'code');
  assert.equal(u.searchParams.get('redirect_uri'), 'http://127.0.0.1:51234/callback');
  assert.equal(u.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(u.searchParams.get('code_challenge'), createHash('sha256').update(r.verifier).digest('base64url'));
  assert.equal(u.searchParams.get('state'), r.state);
  assert.equal(u.searchParams.get('nonce'), r.nonce);
  assert.match(r.verifier, /^[\w-]{43}$/);
  assert.notEqual(newLoopbackRequest('http://127.0.0.1:8000', 51234).state, r.state, 'fresh state each time');
  // RFC 7636 appendix B.
  assert.equal(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  assert.throws(() => loopbackRedirectUri(0), RangeError);
});

test('callback parsing: path, state first, the IdP error, iss, code', () => {
  assert.deepEqual(parseLoopbackCallback('/callback?code=c1&state=s1&iss=https%3A%2F%2Fx%2Fidp', 's1', 'https://x/idp'), { code: 'c1' });
  const code = (fn: () => unknown): string => { try { fn(); return 'none'; } catch (e) { return (e as LoopbackError).code; } };
  assert.equal(code(() => parseLoopbackCallback('/favicon.ico', 's1')), 'not_callback');
  assert.equal(code(() => parseLoopbackCallback('/callback?code=c1&state=s2', 's1')), 'state_mismatch');
  assert.equal(code(() => parseLoopbackCallback('/callback?code=c1', 's1')), 'state_mismatch');
  assert.equal(code(() => parseLoopbackCallback('/callback?error=access_denied&state=s2', 's1')), 'state_mismatch', 'a forged error is not believed either');
  assert.equal(code(() => parseLoopbackCallback('/callback?error=access_denied&state=s1', 's1')), 'access_denied');
  assert.equal(code(() => parseLoopbackCallback('/callback?code=c1&state=s1&iss=https%3A%2F%2Fevil', 's1', 'https://x/idp')), 'issuer_mismatch');
  assert.equal(code(() => parseLoopbackCallback('/callback?state=s1', 's1')), 'missing_code');
  const body = codeExchangeBody('c1', { redirectUri: 'http://127.0.0.1:1/callback', verifier: 'v' });
  assert.deepEqual(Object.fromEntries(body), { grant_type: 'authorization_code', code: 'c1', redirect_uri: 'http://127.0.0.1:1/callback', code_verifier: 'v', client_id: 'svc-frontend' });
});

test('round trip: the browser lands on the one-shot listener, a forged redirect is ignored, the code is exchanged with the verifier', async (t) => {
  const challenges = new Map<string, string>();
  const idp = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => { raw += d.toString(); });
    req.on('end', () => {
      const form = new URLSearchParams(raw);
      const ok = req.url === '/idp/realms/svc/protocol/openid-connect/token' && form.get('grant_type') === 'authorization_code'
        && challenges.get(form.get('code') ?? '') === createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url');
      res.writeHead(ok ? 200 : 400, { 'content-type': 'application/json' })
        .end(JSON.stringify(ok ? { access_token: 'at', refresh_token: 'rt', id_token: 'it', token_type: 'Bearer', expires_in: 300 } : { error: 'invalid_grant' }));
    });
  });
  await new Promise<void>((r) => idp.listen(0, '127.0.0.1', () => r()));
  t.after(() => { idp.close(); });
  const gatewayUrl = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  let listenerSeen = '';
  const tokens = await signInWithLoopback({
    gatewayUrl, issuer: `${gatewayUrl}/idp/realms/svc`, timeoutMs: 5000,
    openBrowser: async (url) => {
      const u = new URL(url);
      const redirect = u.searchParams.get('redirect_uri')!;
      listenerSeen = redirect;
      challenges.set('the-code', u.searchParams.get('code_challenge')!);
      // The "browser" comes back later; first a forged redirect from another page.
      setTimeout(() => {
        void (async () => {
          const forged = await fetch(`${redirect}?code=stolen&state=guess`);
          assert.equal(forged.status, 400);
          const real = await fetch(`${redirect}?code=the-code&state=${u.searchParams.get('state')}&iss=${encodeURIComponent(`${gatewayUrl}/idp/realms/svc`)}`);
          assert.equal(real.status, 200);
        })();
      }, 20);
    },
  });
  assert.deepEqual([tokens.access_token, tokens.refresh_token, tokens.id_token], ['at', 'rt', 'it']);
  assert.match(listenerSeen, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  // One shot: the listener is gone.
  await assert.rejects(fetch(listenerSeen));
});

test('round trip: the user cancels at the IdP, or never comes back', async () => {
  await assert.rejects(signInWithLoopback({
    gatewayUrl: 'http://127.0.0.1:9', timeoutMs: 5000,
    openBrowser: async (url) => {
      const u = new URL(url);
      setTimeout(() => { void fetch(`${u.searchParams.get('redirect_uri')}?error=access_denied&state=${u.searchParams.get('state')}`).catch(() => {}); }, 20);
    },
  }), (e: unknown) => e instanceof LoopbackError && e.code === 'access_denied');
  await assert.rejects(signInWithLoopback({ gatewayUrl: 'http://127.0.0.1:9', timeoutMs: 100, openBrowser: async () => {} }),
    (e: unknown) => e instanceof LoopbackError && e.code === 'timeout');
});
