/**
 * Issue 11 item 1 "No human account can be a service": the shared helpers that tell a genuine
 * service principal from a user's (services/shared/identity/principal-types.ts) and the fixed set
 * of account roles.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ACCOUNT_ROLES, SERVICE_ROLE, accountRoles, isAccountRole, isServicePrincipal, servicePrincipal,
} from '../../../services/shared/identity/principal.js';

test('the account roles are exactly user, admin, tenant_admin, platform_admin; the service role is not one', () => {
  assert.deepEqual([...ACCOUNT_ROLES], ['user', 'admin', 'tenant_admin', 'platform_admin']);
  for (const r of ACCOUNT_ROLES) assert.equal(isAccountRole(r), true);
  for (const r of [SERVICE_ROLE, 'Admin', 'auditor', '', 'admin ']) assert.equal(isAccountRole(r), false, r);
});

test('accountRoles keeps account roles only, first occurrence order, no duplicates', () => {
  assert.deepEqual(accountRoles(['service-account', 'user', 'x', 'admin', 'user']), ['user', 'admin']);
  assert.deepEqual(accountRoles([]), []);
});

test('isServicePrincipal: exactly what servicePrincipal builds, never a role claim', () => {
  assert.equal(isServicePrincipal(servicePrincipal('agent-runtime', 't')), true);
  assert.equal(isServicePrincipal({ id: 'service:gateway', auth_method: 'service' }), true);
  // A user principal claiming the role; a service-looking id on a user; the auth method on a user id.
  assert.equal(isServicePrincipal({ id: 'u1', auth_method: 'password' }), false);
  assert.equal(isServicePrincipal({ id: 'service:gateway', auth_method: 'password' }), false);
  assert.equal(isServicePrincipal({ id: 'service:gateway', auth_method: 'upstream_oidc' }), false);
  assert.equal(isServicePrincipal({ id: 'u1', auth_method: 'service' }), false);
  for (const id of ['service:', 'service:Gateway', 'service:a b', 'service:x/../y', `service:${'a'.repeat(65)}`, ' service:gateway']) {
    assert.equal(isServicePrincipal({ id, auth_method: 'service' }), false, id);
  }
});
