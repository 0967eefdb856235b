/**
 * Issue 15 item 3: dirauth's LDAP client (services/dirauth/src/clients/ldap.ts) against a real
 * Debian slapd loaded from test/fixtures/ldap/directory.ldif: search-then-bind, groups by `member`,
 * filter injection, StartTLS with a private CA, and outages that must fail fast instead of hanging.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { LdapDirectory } from '../../services/dirauth/src/clients/ldap.js';
import { DEFAULT_USER_FILTER, type LdapSettings } from '../../services/dirauth/src/contracts.js';
import { DirectoryError } from '../../services/dirauth/src/domain/ports.js';
import { LDAP_SEARCH, LDAP_SUFFIX, LDAP_USERS, slapdMissing, startSlapd, type Slapd } from '../helpers/slapd.js';

const skip = slapdMissing() ?? false;
let slapd: Slapd;
let tlsSlapd: Slapd;

function settings(url: string, extra: Partial<LdapSettings> = {}): LdapSettings {
  return {
    url, bindDn: LDAP_SEARCH.dn, bindPassword: LDAP_SEARCH.password, userBase: `ou=people,${LDAP_SUFFIX}`, userFilter: DEFAULT_USER_FILTER,
    groupBase: `ou=groups,${LDAP_SUFFIX}`, caFile: null, startTls: false, timeoutMs: 1000, ...extra,
  };
}

async function failure(p: Promise<unknown>): Promise<string> {
  try { await p; } catch (e) { assert.ok(e instanceof DirectoryError, String(e)); return e.kind; }
  assert.fail('expected the verification to fail');
}

before(async () => {
  if (skip) return;
  slapd = await startSlapd();
  tlsSlapd = await startSlapd({ tls: true });
});
after(async () => { await slapd?.dispose(); await tlsSlapd?.dispose(); });

test('a directory user is found by uid or mail, bound as, and gets their groups', { skip }, async () => {
  const dir = new LdapDirectory(settings(slapd.url));
  const alice = await dir.verify('alice', LDAP_USERS.alice.password);
  assert.deepEqual(alice, {
    dn: `uid=alice,ou=people,${LDAP_SUFFIX}`, username: 'alice', email: 'alice@example.test', name: 'Alice Example', groups: ['Engineering', 'Platform Admins'],
  });
  const bob = await dir.verify('bob@example.test', LDAP_USERS.bob.password);
  assert.equal(bob.email, 'bob@example.test');
  assert.equal(bob.name, 'Bob Builder');
  assert.deepEqual(bob.groups, ['Engineering']);
});

test('a wrong password, an unknown user and an empty password are invalid credentials', { skip }, async () => {
  const dir = new LdapDirectory(settings(slapd.url));
  assert.equal(await failure(dir.verify('alice', 'wrong')), 'invalid_credentials');
  assert.equal(await failure(dir.verify('nobody', 'whatever')), 'invalid_credentials');
  assert.equal(await failure(dir.verify('alice', '')), 'invalid_credentials');
});

test('filter injection finds nobody: the username is escaped, not spliced into the filter', { skip }, async () => {
  const dir = new LdapDirectory(settings(slapd.url));
  // Unescaped, `*)(uid=*` turns the filter into (|(uid=*)(uid=*)(mail=*)...) and matches everyone.
  for (const u of ['*)(uid=*', '*', 'ali*', 'alice)(|(uid=*']) {
    assert.equal(await failure(dir.verify(u, LDAP_USERS.alice.password)), 'invalid_credentials', u);
  }
});

test('a search account the directory refuses is an outage, not a wrong user password', { skip }, async () => {
  const dir = new LdapDirectory(settings(slapd.url, { bindPassword: 'not-the-search-secret' }));
  assert.equal(await failure(dir.verify('alice', LDAP_USERS.alice.password)), 'unavailable');
});

test('StartTLS and LDAPS with the operator CA work; without trusting the CA it is an outage', { skip }, async () => {
  const ok = new LdapDirectory(settings(tlsSlapd.url, { startTls: true, caFile: tlsSlapd.caFile }));
  assert.equal((await ok.verify('alice', LDAP_USERS.alice.password)).email, 'alice@example.test');
  const ldaps = new LdapDirectory(settings(tlsSlapd.ldapsUrl!, { caFile: tlsSlapd.caFile }));
  assert.deepEqual((await ldaps.verify('bob', LDAP_USERS.bob.password)).groups, ['Engineering']);
  const untrusted = new LdapDirectory(settings(tlsSlapd.url, { startTls: true }));
  assert.equal(await failure(untrusted.verify('alice', LDAP_USERS.alice.password)), 'unavailable');
});

test('a directory that accepts connections but never answers fails within the timeout', { skip }, async () => {
  const sockets: Socket[] = [];
  const tarpit: Server = createServer((s) => { sockets.push(s); });
  await new Promise<void>((r) => tarpit.listen(0, '127.0.0.1', r));
  const { port } = tarpit.address() as { port: number };
  try {
    const dir = new LdapDirectory(settings(`ldap://127.0.0.1:${port}`, { timeoutMs: 300 }));
    const t0 = Date.now();
    assert.equal(await failure(dir.verify('alice', LDAP_USERS.alice.password)), 'unavailable');
    assert.ok(Date.now() - t0 < 1500, `took ${Date.now() - t0} ms`);
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => tarpit.close(() => r()));
  }
});

test('a stopped directory fails fast as unavailable, and works again once it is back', { skip }, async () => {
  const dir = new LdapDirectory(settings(slapd.url));
  await slapd.stop();
  try {
    const t0 = Date.now();
    assert.equal(await failure(dir.verify('alice', LDAP_USERS.alice.password)), 'unavailable');
    assert.ok(Date.now() - t0 < 3000);
  } finally {
    await slapd.start();
  }
  assert.equal((await dir.verify('alice', LDAP_USERS.alice.password)).username, 'alice');
});
