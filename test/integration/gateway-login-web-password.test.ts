/**
 * Issue 15 item 1 ("the gateway's POST /v1/auth/login uses svc-web-password server-side, so the
 * browser never holds its secret"): through the whole stack, a local account's password login is
 * the realm's `password` grant: the token has the realm issuer and `client_id: svc-web-password`,
 * the answer keeps auth's token-response shape, and `POST /v1/auth/refresh` rotates it at the realm
 * (a spent one is `refresh_token_reused`, and then the whole sign-in is over). The realm's refusals
 * come back as the same `{error, code}` and statuses auth answered (invalid_credentials 401,
 * account_disabled 403, login_throttled 429 with Retry-After after exactly the configured number
 * of failures, invalid_request with `field` for a malformed body); auth's own refresh tokens still
 * refresh (directory accounts': directory-sign-in.test.ts). A user with a paired phone gets a
 * challenge (202, no token) and the realm tokens only after the second factor.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { ADMIN, callJson, login, startStack, type JsonAnswer, type TestStack } from '../helpers/stack.js';
import { SimDevice } from '../helpers/second-factor.js';

let stack: TestStack;

async function post(path: string, body: unknown, contentType = 'application/json'): Promise<JsonAnswer> {
  const r = await fetch(stack.url + path, { method: 'POST', headers: { 'content-type': contentType }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await r.text();
  let parsed: unknown = text;
  try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  return { status: r.status, body: parsed, headers: r.headers };
}

before(async () => { stack = await startStack({ SVC_LOGIN_MAX_FAILURES_PER_ACCOUNT: '3' }); });
after(async () => { await stack?.stop(); });

test('a local account signs in at the realm through svc-web-password; the answer keeps auth\'s shape', async () => {
  const r = await post('/v1/auth/login', { username: ADMIN.email, password: ADMIN.password });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body as object).sort(), ['access_token', 'expires_in', 'refresh_token', 'token_type']);
  assert.equal(r.body.token_type, 'Bearer');
  assert.equal(r.headers.get('cache-control'), 'no-store');
  const claims = decodeJwt(String(r.body.access_token));
  assert.equal(claims.iss, `${stack.url}/idp/realms/svc`);
  assert.equal(claims.aud, 'svc-frontend');
  assert.equal(claims.client_id, 'svc-web-password');
  assert.equal(claims.auth_method, 'password');
  assert.equal(claims.email, ADMIN.email);
  assert.equal(r.body.expires_in, (claims.exp ?? 0) - (claims.iat ?? 0), 'expires_in is the token lifetime');
  const v = await callJson(stack.url, String(r.body.access_token), 'GET', '/v1/auth/verify');
  assert.equal(v.status, 200);
  assert.ok((v.body.roles as string[]).includes('admin'));
  assert.equal(JSON.stringify(r.body).includes('svc-web-password:'), false);
});

test('refresh rotates a realm refresh token; a spent one is refresh_token_reused and ends the sign-in', async () => {
  const first = await post('/v1/auth/login', { username: ADMIN.email, password: ADMIN.password });
  const second = await post('/v1/auth/refresh', { refresh_token: first.body.refresh_token });
  assert.equal(second.status, 200, JSON.stringify(second.body));
  assert.deepEqual(Object.keys(second.body as object).sort(), ['access_token', 'expires_in', 'refresh_token', 'token_type']);
  assert.notEqual(second.body.refresh_token, first.body.refresh_token);
  const a = decodeJwt(String(first.body.access_token));
  const b = decodeJwt(String(second.body.access_token));
  assert.equal(b.iss, `${stack.url}/idp/realms/svc`);
  assert.equal(b.sid, a.sid, 'the same sign-in');
  const reuse = await post('/v1/auth/refresh', { refresh_token: first.body.refresh_token });
  assert.equal(reuse.status, 401);
  assert.equal(reuse.body.code, 'refresh_token_reused');
  const after = await post('/v1/auth/refresh', { refresh_token: second.body.refresh_token });
  assert.equal(after.status, 401);
  assert.equal(after.body.code, 'refresh_token_invalid', 'the whole sign-in is revoked');
  const garbage = await post('/v1/auth/refresh', { refresh_token: 'not-a-token' });
  assert.equal(garbage.status, 401);
  assert.equal(garbage.body.code, 'refresh_token_invalid');
  const malformed = await post('/v1/auth/refresh', {});
  assert.equal(malformed.status, 400);
  assert.equal(malformed.body.field, 'body.refresh_token');
});

test('errors keep auth\'s codes and statuses; throttling counts each attempt once', async () => {
  const admin = await login(stack.url, ADMIN.email, ADMIN.password);
  const created = await callJson(stack.url, admin, 'POST', '/v1/admin/users', { email: 'vic@example.com', display_name: 'Vic', password: 'vic password 123', roles: ['user'] });
  assert.equal(created.status, 201);

  const missing = await post('/v1/auth/login', { username: 'vic@example.com' });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.code, 'invalid_request');
  assert.equal(missing.body.field, 'body.password');
  const notJson = await post('/v1/auth/login', 'username=vic', 'text/plain');
  assert.equal(notJson.status, 400, 'not JSON: auth\'s own answer, as before');
  assert.equal(notJson.body.code, 'invalid_request', JSON.stringify(notJson.body));

  // SVC_LOGIN_MAX_FAILURES_PER_ACCOUNT=3: three wrong passwords are counted, the fourth attempt waits.
  for (let i = 0; i < 3; i += 1) {
    const wrong = await post('/v1/auth/login', { username: 'vic@example.com', password: `wrong password ${i}` });
    assert.equal(wrong.status, 401, JSON.stringify(wrong.body));
    assert.equal(wrong.body.code, 'invalid_credentials');
    assert.equal(wrong.body.error, 'invalid username or password');
    assert.ok(!JSON.stringify(wrong.body).includes('wrong password'));
  }
  const throttled = await post('/v1/auth/login', { username: 'vic@example.com', password: 'vic password 123' });
  assert.equal(throttled.status, 429, JSON.stringify(throttled.body));
  assert.equal(throttled.body.code, 'login_throttled');
  assert.ok(Number(throttled.headers.get('retry-after')) >= 1);
  await new Promise((res) => setTimeout(res, Number(throttled.headers.get('retry-after')) * 1000 + 100));
  const ok = await post('/v1/auth/login', { username: 'vic@example.com', password: 'vic password 123' });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));

  assert.equal((await callJson(stack.url, admin, 'PATCH', `/v1/admin/users/${String(created.body.id)}`, { disabled: true })).status, 200);
  const disabled = await post('/v1/auth/login', { username: 'vic@example.com', password: 'vic password 123' });
  assert.equal(disabled.status, 403);
  assert.equal(disabled.body.code, 'account_disabled');
  const refreshDisabled = await post('/v1/auth/refresh', { refresh_token: ok.body.refresh_token });
  assert.equal(refreshDisabled.status, 403);
  assert.equal(refreshDisabled.body.code, 'account_disabled');
  const unknown = await post('/v1/auth/login', { username: 'nobody@example.com', password: 'whatever 123' });
  assert.equal(unknown.status, 401);
  assert.equal(unknown.body.code, 'invalid_credentials');
});

test('a paired phone still parks the realm tokens behind the second factor', async () => {
  const admin = await login(stack.url, ADMIN.email, ADMIN.password);
  const created = await callJson(stack.url, admin, 'POST', '/v1/admin/users', { email: 'wes@example.com', display_name: 'Wes', password: 'wes password 123', roles: ['user'] });
  assert.equal(created.status, 201);
  const wes = await login(stack.url, 'wes@example.com', 'wes password 123');
  const pairing = await callJson(stack.url, wes, 'POST', '/v1/account/devices/pairing');
  assert.equal(pairing.status, 201, JSON.stringify(pairing.body));
  const phone = await SimDevice.create();
  const paired = await phone.pair(stack.url, String(pairing.body.enrollment_url));
  assert.equal(paired.status, 201, JSON.stringify(paired.body));

  const parked = await post('/v1/auth/login', { username: 'wes@example.com', password: 'wes password 123' });
  assert.equal(parked.status, 202, JSON.stringify(parked.body));
  assert.doesNotMatch(JSON.stringify(parked.body), /access_token|refresh_token|eyJ/);
  assert.ok(Array.isArray(parked.body.methods));
  const done = await post('/v1/auth/login/2fa', { challenge_id: parked.body.challenge_id, code: phone.code() });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  const claims = decodeJwt(String(done.body.access_token));
  assert.equal(claims.iss, `${stack.url}/idp/realms/svc`);
  assert.equal(claims.sub, created.body.id);
  const again = await post('/v1/auth/login/2fa', { challenge_id: parked.body.challenge_id, code: phone.code() });
  assert.notEqual(again.status, 200, 'released once');
});
