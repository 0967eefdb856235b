/**
 * Issue 15 items 1-2: a token of the embedded IdP for a brokered sign-in names the upstream
 * identity, and the gateway's principal carries it (`upstream_iss`, `upstream_sub`,
 * `upstream_preferred_username`, `auth_method: upstream_oidc`) into the signed stamp; a local
 * sign-in's principal has none of them, and non-string values are dropped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyStamp } from '../../../services/shared/identity/principal.js';
import { stampIdentity, type IdentitySettings } from '../../../services/gateway/src/domain/identity.js';
import type { ValidatedClaims } from '../../../services/gateway/src/contracts.js';

const settings: IdentitySettings = { tenantId: 'acme', principalKeys: ['p'.repeat(64)], capTokenKeys: ['c'.repeat(64)], adminEmailAllowlist: [], groupRoleMap: {} };
const base: ValidatedClaims = {
  iss: 'https://ws.example/idp/realms/svc', sub: 'user-1', iat: 1000, exp: 2000, email: 'ana@example.com', name: 'Ana',
  realm_access: { roles: ['user'] }, groups: ['Staff'], sid: 'grant-1',
};

test('a brokered sign-in puts the upstream identity into the signed principal', () => {
  const id = stampIdentity({ ...base, auth_method: 'upstream_oidc', upstream_iss: 'https://corp.example', upstream_sub: 'u-77', upstream_preferred_username: 'ana.c' }, settings, 1500);
  assert.equal(id.principal.auth_method, 'upstream_oidc');
  assert.equal(id.principal.upstream_iss, 'https://corp.example');
  assert.equal(id.principal.upstream_sub, 'u-77');
  assert.equal(id.principal.upstream_preferred_username, 'ana.c');
  assert.equal(id.principal.session_id, 'grant-1');
  assert.deepEqual(id.principal.groups, ['Staff']);
  const verified = verifyStamp<{ exp: number; upstream_sub?: string }>(id.stamp, settings.principalKeys, 1500);
  assert.ok(verified.ok, 'the stamp verifies');
  assert.equal(verified.ok && verified.payload.upstream_sub, 'u-77');
});

test('a local sign-in has no upstream fields; non-string upstream claims are dropped', () => {
  const local = stampIdentity({ ...base, auth_method: 'password' }, settings, 1500);
  assert.equal(local.principal.auth_method, 'password');
  assert.equal(local.principal.upstream_iss, undefined);
  const odd = stampIdentity({ ...base, auth_method: 'upstream_oidc', upstream_iss: 42, upstream_sub: { x: 1 } }, settings, 1500);
  assert.equal(odd.principal.upstream_iss, undefined);
  assert.equal(odd.principal.upstream_sub, undefined);
});
