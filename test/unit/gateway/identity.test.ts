/**
 * From claims to the stamped identity (services/gateway/src/domain/identity.ts; spec "Principal",
 * "Identity headers", "Roles and groups"): effective roles, header-safe values, the capability
 * token's canonical form, and the per-token identity cache.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { jcs } from '../../../services/shared/identity/jcs.js';
import { CAPABILITY_SCOPES, verifyStamp, type CapabilityToken, type Principal } from '../../../services/shared/identity/principal.js';
import {
  IdentityCache, anonymousIdentity, capabilityToken, effectiveRoles, headerValue, refreshStamp, stampIdentity, type IdentitySettings,
} from '../../../services/gateway/src/domain/identity.js';
import type { ValidatedClaims } from '../../../services/gateway/src/contracts.js';

const settings: IdentitySettings = {
  tenantId: 'acme', principalKeys: ['p'.repeat(64)], capTokenKeys: ['c'.repeat(64)],
  adminEmailAllowlist: ['boss@example.com'], groupRoleMap: { Admins: ['admin'], Auditors: ['tenant_admin'] },
};
const claims = (over: Partial<ValidatedClaims> = {}): ValidatedClaims => ({
  iss: 'http://issuer', sub: 'user-1', iat: 1000, exp: 2000, email: 'ana@example.com', name: 'Ana',
  realm_access: { roles: ['user'] }, groups: ['Auditors'], ...over,
});

test('roles: realm roles, then group mapping, then the admin allow-list; sorted, never removed', () => {
  assert.deepEqual(effectiveRoles(claims(), settings), ['tenant_admin', 'user']);
  assert.deepEqual(effectiveRoles(claims({ email: 'Boss@Example.com', groups: [] }), settings), ['admin', 'user']);
  assert.deepEqual(effectiveRoles({ realm_access: { roles: 'admin' }, groups: 'Admins', roles: ['platform_admin'] }, settings), ['platform_admin']);
});

test('header values: visible ASCII as is, anything else percent-encoded', () => {
  assert.equal(headerValue('ana@example.com'), 'ana@example.com');
  assert.equal(headerValue('Zoë'), 'Zo%C3%AB');
  assert.equal(headerValue('a\nb'), 'a%0Ab');
});

test('stamped identity: pinned tenant, signed principal, downstream headers', () => {
  const id = stampIdentity(claims({ tenant_id: 'other', auth_method: 'bogus' }), settings, 5000);
  assert.equal(id.principal.tenant_id, 'acme');
  assert.equal(id.principal.auth_method, 'upstream_oidc');
  assert.equal(id.principal.display_name, 'Ana');
  assert.equal(id.stampExp, 5300);
  assert.deepEqual(id.headers, { 'x-user-id': 'user-1', 'x-user-roles': 'tenant_admin,user', 'x-tenant-id': 'acme', 'x-user-email': 'ana@example.com' });
  const v = verifyStamp<Principal>(id.stamp, settings.principalKeys, 5000);
  assert.ok(v.ok && v.payload.id === 'user-1');
  assert.equal(anonymousIdentity(settings, 5000).principal.auth_method, 'anonymous');
});

test('a stamp is re-signed only in its last minute', () => {
  const id = stampIdentity(claims(), settings, 5000);
  assert.equal(refreshStamp(id, settings, 5200), id);
  const fresh = refreshStamp(id, settings, 5250);
  assert.notEqual(fresh, id);
  assert.equal(fresh.stampExp, 5550);
});

test('the capability token is the JCS form signStamp would produce', () => {
  const p = stampIdentity(claims(), settings, 5000).principal;
  const token = capabilityToken(p, '01TURN', settings, 5000);
  const body = jcs({ sub: 'user-1', tenant_id: 'acme', scopes: CAPABILITY_SCOPES, turn_id: '01TURN', exp: 5300 });
  assert.equal(token, `${Buffer.from(body).toString('base64url')}.${createHmac('sha256', settings.capTokenKeys[0]!).update(body).digest('base64url')}`);
  const v = verifyStamp<CapabilityToken>(token, settings.capTokenKeys, 5000);
  assert.ok(v.ok && v.payload.turn_id === '01TURN');
});

test('the identity cache stamps a token once and drops everything when full', () => {
  const cache = new IdentityCache(settings, 2);
  const a = cache.identity('tok-a', claims({ sub: 'a' }));
  assert.equal(cache.identity('tok-a', claims({ sub: 'ignored' })), a, 'cached per token');
  const b = cache.identity('tok-b', claims({ sub: 'b' }));
  assert.equal(b.principal.id, 'b');
  cache.identity('tok-c', claims({ sub: 'c' }));
  const again = cache.identity('tok-a', claims({ sub: 'a2' }));
  assert.notEqual(again, a, 'the cache was cleared when full');
  assert.equal(again.principal.id, 'a2');
});
