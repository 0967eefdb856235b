/**
 * The gateway's route table (services/gateway/src/domain/route-table.ts; spec "What the service
 * does" rule 4): longest match wins, exact beats prefix, method restrictions fall through to shorter
 * patterns, `{x}` matches one segment, rewrites, and the public bypass flags.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RouteTable, ROUTES, type RouteRule } from '../../../services/gateway/src/domain/route-table.js';

const table = new RouteTable();
const target = (r: RouteRule | null): string => {
  if (!r) return 'none';
  return r.target.kind === 'proxy' ? `proxy:${r.target.service}` : `local:${r.target.handler}`;
};

test('longest match wins over the /v1/* catch-all', () => {
  assert.equal(target(table.match('GET', '/v1/sessions')), 'proxy:agent-runtime');
  assert.equal(target(table.match('GET', '/v1/admin/inference/providers')), 'proxy:inference-router');
  assert.equal(target(table.match('GET', '/v1/admin/observability/x')), 'proxy:observability');
  assert.equal(target(table.match('GET', '/v1/admin/other')), 'proxy:agent-runtime');
  assert.equal(target(table.match('POST', '/v1/chat/agui/stream')), 'local:agui');
  assert.equal(target(table.match('GET', '/v1/audit/turns/01ABC/replay/live')), 'proxy:agent-runtime');
  assert.equal(target(table.match('GET', '/v1/audit/turns/01ABC')), 'proxy:audit');
});

test('methods restrict a row; other methods fall through to shorter patterns', () => {
  const login = table.match('POST', '/v1/auth/login');
  assert.equal(login?.public, true);
  const getLogin = table.match('GET', '/v1/auth/login');
  assert.equal(getLogin?.pattern, '/v1/auth/*');
  assert.equal(getLogin?.public, undefined, 'the bearer chain applies');
  assert.equal(target(table.match('GET', '/v1/admin/status')), 'local:status');
  assert.equal(target(table.match('POST', '/v1/admin/status')), 'proxy:agent-runtime');
});

test('{x} matches exactly one segment', () => {
  assert.equal(table.match('GET', '/v1/oauth/github/callback')?.public, true);
  assert.equal(table.match('GET', '/v1/oauth/a/b/callback')?.public, undefined);
});

test('rewrites strip prefixes and map admin inference onto the internal API', () => {
  const rw = (path: string): string => {
    const r = table.match('GET', path)!;
    assert.equal(r.target.kind, 'proxy');
    return r.target.kind === 'proxy' && r.target.rewrite ? r.target.rewrite(path) : path;
  };
  assert.equal(rw('/v1/sandbox/execute'), '/execute');
  assert.equal(rw('/v1/sandbox'), '/');
  assert.equal(rw('/v1/admin/inference/providers/p1'), '/v1/internal/providers/p1');
  assert.equal(rw('/v1/admin/egress/allowlist'), '/v1/internal/egress/allowlist');
  assert.equal(rw('/auth/.well-known/jwks.json'), '/.well-known/jwks.json');
  assert.equal(rw('/dirauth/.well-known/openid-configuration'), '/.well-known/openid-configuration');
});

test('reserved, unavailable and unknown paths', () => {
  assert.equal(target(table.match('GET', '/v1/connectors/x')), 'local:reserved');
  // Issue 19 items 1, 4, 5: the operating routes are the gateway's own (routes/ops.ts).
  assert.equal(target(table.match('GET', '/v1/admin/jobs')), 'local:ops');
  assert.equal(target(table.match('POST', '/v1/admin/services/memory/restart')), 'local:ops');
  assert.equal(target(table.match('GET', '/v1/admin/services')), 'local:status');
  // Issue 15 item 2: upstream SSO IdPs are served by auth.
  assert.equal(target(table.match('GET', '/v1/admin/sso/idps')), 'proxy:auth');
  assert.equal(target(table.match('POST', '/v1/admin/sso/idps/corp/test')), 'proxy:auth');
  assert.equal(table.match('GET', '/'), null);
  assert.equal(table.match('GET', '/v1'), null);
  assert.equal(table.match('GET', '/v2/x'), null);
});

test('the lookup cache answers the same as a fresh table', () => {
  const fresh = new RouteTable(ROUTES);
  for (const p of ['/v1/sessions', '/v1/admin/status', '/nope', '/v1/sessions']) {
    assert.equal(table.match('GET', p), fresh.match('GET', p), p);
  }
});
