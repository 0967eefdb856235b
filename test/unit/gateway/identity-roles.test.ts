/**
 * Issue 11 item 1 "No human account can be a service": the gateway stamps only account roles from
 * a token (after the group map and the admin allow-list) and never a token's `service` or
 * `anonymous` auth method (services/gateway/src/domain/identity.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isServicePrincipal } from '../../../services/shared/identity/principal.js';
import { effectiveRoles, stampIdentity, type IdentitySettings } from '../../../services/gateway/src/domain/identity.js';

const settings: IdentitySettings = {
  tenantId: 'acme', principalKeys: ['p'.repeat(64)], capTokenKeys: ['c'.repeat(64)],
  adminEmailAllowlist: [], groupRoleMap: { Ops: ['tenant_admin'], Legacy: ['service-account'] },
};

test('roles outside the account set never reach the principal, from claims or from the group map', () => {
  assert.deepEqual(effectiveRoles({ realm_access: { roles: ['service-account', 'user', 'auditor'] }, roles: ['service-account'], groups: ['Ops', 'Legacy'] }, settings), ['tenant_admin', 'user']);
});

test('a token claiming auth_method service (or anonymous) and a service id is stamped as an upstream user', () => {
  for (const auth_method of ['service', 'anonymous']) {
    const { principal, headers } = stampIdentity({
      iss: 'http://idp', sub: 'service:gateway', iat: 1, exp: 2, auth_method, realm_access: { roles: ['service-account'] },
    }, settings, 1000);
    assert.equal(principal.auth_method, 'upstream_oidc', auth_method);
    assert.deepEqual(principal.roles, []);
    assert.equal(headers['x-user-roles'], '');
    assert.equal(isServicePrincipal(principal), false);
  }
  assert.equal(stampIdentity({ iss: 'http://idp', sub: 'u', iat: 1, exp: 2, auth_method: 'password' }, settings, 1000).principal.auth_method, 'password');
});
