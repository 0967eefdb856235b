/**
 * Issue 15 item 3: the pure helpers of directory sign-in: RFC 4515 filter escaping, group names
 * from DNs, group-mapped roles, and the dirauth settings reader.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Filter } from 'ldapts';
import { escapeFilterValue, groupNameFromDn, uniqueGroups, userFilter, values } from '../../../services/dirauth/src/domain/filter.js';
import { directoryRoles } from '../../../services/auth/src/domain/directory-login.js';
import { dirauthSettings } from '../../../main/config/services/dirauth.js';
import { ConfigError } from '../../../main/config/env.js';

const ctx = { dataDir: '/tmp', repoRoot: '/tmp', production: false };

test('filter values are escaped per RFC 4515, as ldapts escapes them', () => {
  for (const v of ['*)(uid=*', 'a\\b', '(x)', 'nul\u0000byte', 'plain.user@example.test']) {
    assert.equal(escapeFilterValue(v), Filter.escape(v), v);
  }
  assert.equal(escapeFilterValue('*)(uid=*'), '\\2a\\29\\28uid=\\2a');
});

test('the user filter substitutes every {username} with the escaped value', () => {
  assert.equal(userFilter('(|(uid={username})(mail={username}))', '*)(uid=*'), '(|(uid=\\2a\\29\\28uid=\\2a)(mail=\\2a\\29\\28uid=\\2a))');
  assert.equal(userFilter('(sAMAccountName={username})', 'alice'), '(sAMAccountName=alice)');
});

test('group names come from the first RDN of a DN; lists are sorted and unique', () => {
  assert.equal(groupNameFromDn('cn=Platform Admins,ou=groups,dc=example,dc=test'), 'Platform Admins');
  assert.equal(groupNameFromDn('CN=Sales\\, EMEA,OU=Groups,DC=corp'), 'Sales, EMEA');
  assert.equal(groupNameFromDn('no-equals-sign'), null);
  assert.deepEqual(uniqueGroups(['b', 'a', 'b', '']), ['a', 'b']);
  assert.deepEqual(values([Buffer.from('x'), 'y']), ['x', 'y']);
  assert.deepEqual(values(undefined), []);
});

test('directory roles: user plus the mapped account roles; unknown roles in the map are ignored', () => {
  const map = { 'Platform Admins': ['admin'], Engineering: ['user'], Odd: ['service-account'] };
  assert.deepEqual(directoryRoles(['Engineering', 'Platform Admins'], map), ['user', 'admin']);
  assert.deepEqual(directoryRoles(['Engineering'], map), ['user']);
  assert.deepEqual(directoryRoles(['Odd', 'Unmapped'], map), ['user']);
});

test('settings: off without DIRAUTH_LDAP_URL; defaults filled; refusals name the variable', () => {
  assert.deepEqual(dirauthSettings({}, ctx), { ldap: null });
  const s = dirauthSettings({ DIRAUTH_LDAP_URL: 'ldap://dir:389', DIRAUTH_LDAP_USER_BASE: 'ou=people,dc=x' }, ctx);
  assert.deepEqual(s.ldap, {
    url: 'ldap://dir:389', bindDn: null, bindPassword: '', userBase: 'ou=people,dc=x', userFilter: '(|(uid={username})(mail={username}))',
    groupBase: null, caFile: null, startTls: false, timeoutMs: 5000,
  });
  const refused = (env: Record<string, string>, re: RegExp): void => {
    assert.throws(() => dirauthSettings(env, ctx), (e: unknown) => e instanceof ConfigError && re.test(e.message));
  };
  refused({ DIRAUTH_LDAP_URL: 'http://dir' }, /DIRAUTH_LDAP_URL/);
  refused({ DIRAUTH_LDAP_URL: 'ldap://dir' }, /DIRAUTH_LDAP_USER_BASE/);
  refused({ DIRAUTH_LDAP_URL: 'ldap://dir', DIRAUTH_LDAP_USER_BASE: 'dc=x', DIRAUTH_LDAP_USER_FILTER: '(uid=alice)' }, /DIRAUTH_LDAP_USER_FILTER/);
  refused({ DIRAUTH_LDAP_URL: 'ldap://dir', DIRAUTH_LDAP_USER_BASE: 'dc=x', DIRAUTH_LDAP_BIND_DN: 'cn=s' }, /DIRAUTH_LDAP_BIND_PASSWORD/);
  refused({ DIRAUTH_LDAP_URL: 'ldaps://dir', DIRAUTH_LDAP_USER_BASE: 'dc=x', DIRAUTH_LDAP_STARTTLS: 'true' }, /STARTTLS/);
  refused({ DIRAUTH_LDAP_URL: 'ldap://dir', DIRAUTH_LDAP_USER_BASE: 'dc=x', DIRAUTH_LDAP_CA_FILE: '/nonexistent/ca.pem' }, /DIRAUTH_LDAP_CA_FILE/);
  // Production: passwords only over TLS (LDAPS or StartTLS), or to a directory on this machine.
  const prod = { ...ctx, production: true };
  assert.throws(() => dirauthSettings({ DIRAUTH_LDAP_URL: 'ldap://dir.corp:389', DIRAUTH_LDAP_USER_BASE: 'dc=x' }, prod), /ldaps:\/\/ or set DIRAUTH_LDAP_STARTTLS/);
  assert.equal(dirauthSettings({ DIRAUTH_LDAP_URL: 'ldap://dir.corp:389', DIRAUTH_LDAP_USER_BASE: 'dc=x', DIRAUTH_LDAP_STARTTLS: 'true' }, prod).ldap?.startTls, true);
  assert.equal(dirauthSettings({ DIRAUTH_LDAP_URL: 'ldaps://dir.corp:636', DIRAUTH_LDAP_USER_BASE: 'dc=x' }, prod).ldap?.url, 'ldaps://dir.corp:636');
  assert.equal(dirauthSettings({ DIRAUTH_LDAP_URL: 'ldap://127.0.0.1:389', DIRAUTH_LDAP_USER_BASE: 'dc=x' }, prod).ldap?.url, 'ldap://127.0.0.1:389');
});
