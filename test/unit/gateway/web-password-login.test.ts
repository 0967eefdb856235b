/**
 * Issue 15 item 1: the gateway's reading of login/refresh bodies and of the realm token endpoint's
 * answers (services/gateway/src/domain/web-password-login.ts): only bodies auth would accept go to
 * the realm; tokens keep auth's response shape; our codes come back with auth's statuses (and
 * Retry-After when throttled); `directory_account` sends the login to auth; anything else is 503.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../services/shared/http/errors.js';
import { DomainError } from '../../../services/shared/kit/domain-error.js';
import { grantOutcome, readLoginBody, readRefreshBody } from '../../../services/gateway/src/domain/web-password-login.js';

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

test('only a body auth would accept goes to the realm', () => {
  assert.deepEqual(readLoginBody(json({ username: 'a@b', password: 'pw' }), 'application/json; charset=utf-8'), { username: 'a@b', password: 'pw' });
  assert.equal(readLoginBody(json({ username: 'a@b', password: 'pw' }), 'text/plain'), null, 'not JSON by type');
  assert.equal(readLoginBody(json({ username: 'a@b' }), 'application/json'), null, 'missing password');
  assert.equal(readLoginBody(json({ username: 'a@b', password: 'pw', admin: true }), 'application/json'), null, 'extra field');
  assert.equal(readLoginBody(json({ username: '', password: 'pw' }), 'application/json'), null, 'empty username');
  assert.equal(readLoginBody(json({ username: 'a@b', password: 'x'.repeat(1025) }), 'application/json'), null, 'password too long');
  assert.equal(readLoginBody(Buffer.from('{not json'), 'application/json'), null);
  assert.equal(readLoginBody(json([1]), 'application/json'), null);
  assert.equal(readRefreshBody(json({ refresh_token: 'abc' }), 'application/json'), 'abc');
  assert.equal(readRefreshBody(json({ refresh_token: 'x'.repeat(513) }), 'application/json'), null);
  assert.equal(readRefreshBody(json({}), 'application/json'), null);
});

test('tokens keep auth\'s shape; the realm\'s scope is dropped', () => {
  const out = grantOutcome({ status: 200, retryAfter: null, body: { access_token: 'a', refresh_token: 'r', token_type: 'Bearer', expires_in: 900, scope: 'openid' } });
  assert.equal(out.kind, 'tokens');
  assert.equal(out.kind === 'tokens' && out.bundle, '{"access_token":"a","refresh_token":"r","token_type":"Bearer","expires_in":900}');
  assert.throws(() => grantOutcome({ status: 200, retryAfter: null, body: { access_token: 'a' } }), (e: unknown) => e instanceof DomainError && e.code === 'service_unavailable');
});

test('our codes come back with auth\'s statuses; directory accounts go to auth; anything else is 503', () => {
  const refused = (code: string, status = 400, retryAfter: string | null = null) => {
    const out = grantOutcome({ status, retryAfter, body: { error: 'invalid_grant', error_description: `msg ${code}`, code } });
    assert.equal(out.kind, 'refused');
    return out.kind === 'refused' ? out.error : null;
  };
  const bad = refused('invalid_credentials')!;
  assert.ok(bad instanceof AppError);
  assert.deepEqual([bad.status, bad.code, bad.message], [401, 'invalid_credentials', 'msg invalid_credentials']);
  assert.equal(refused('account_disabled')!.status, 403);
  assert.equal(refused('password_login_disabled')!.status, 403);
  assert.equal(refused('refresh_token_reused')!.status, 401);
  const slow = refused('login_throttled', 429, '7')!;
  assert.deepEqual([slow.status, slow.headers?.['retry-after']], [429, '7']);
  assert.equal(refused('directory_unavailable', 503)!.status, 503);
  assert.deepEqual(grantOutcome({ status: 400, retryAfter: null, body: { error: 'invalid_grant', code: 'directory_account' } }), { kind: 'directory' });
  for (const body of [{ error: 'invalid_client' }, { error: 'invalid_grant', code: 'made_up' }, {}]) {
    assert.throws(() => grantOutcome({ status: 401, retryAfter: null, body }), (e: unknown) => e instanceof DomainError && e.code === 'service_unavailable');
  }
});
