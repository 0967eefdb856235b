/**
 * Issue 11 item 1 "No human account can be a service": the roles an account may be given
 * (services/auth/src/domain/roles.ts) and the roles its access token carries.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assignableRoles, tokenRoles } from '../../../services/auth/src/domain/roles.js';
import { AUTH_ERRORS, LIMITS } from '../../../services/auth/src/contracts.js';
import { isDomainError, statusOf } from '../../../services/shared/kit/domain-error.js';

function refusal(roles: string[]): { status: number; code: string; extra: unknown } {
  try { assignableRoles(roles); } catch (e) {
    assert.ok(isDomainError(e));
    return { status: statusOf(AUTH_ERRORS, e.code, e.situation), code: e.code, extra: e.extra };
  }
  assert.fail(`expected ${JSON.stringify(roles)} to be refused`);
}

test('account roles pass, de-duplicated in first occurrence order', () => {
  assert.deepEqual(assignableRoles(['user', 'admin', 'user']), ['user', 'admin']);
  assert.deepEqual(assignableRoles(['tenant_admin', 'platform_admin']), ['tenant_admin', 'platform_admin']);
  assert.deepEqual(assignableRoles([]), []);
});

test('the service role is refused as not assignable, an unknown role as unknown, a malformed one as invalid', () => {
  assert.deepEqual(refusal(['user', 'service-account']), { status: 400, code: 'role_not_assignable', extra: { field: 'body.roles', role: 'service-account' } });
  assert.deepEqual(refusal(['auditor']), { status: 400, code: 'role_unknown', extra: { field: 'body.roles', role: 'auditor' } });
  assert.deepEqual(refusal(['Admin!']), { status: 400, code: 'invalid_request', extra: { field: 'body.roles' } });
  assert.equal(refusal(Array.from({ length: LIMITS.rolesMax + 1 }, () => 'user')).code, 'invalid_request');
});

test('a token carries only the account roles of a stored account', () => {
  assert.deepEqual(tokenRoles(['user', 'service-account', 'analyst.eu', 'admin']), ['user', 'admin']);
});
