/**
 * Issue 15 item 3: provisioning of directory users in the auth store (directory-login.ts) over a
 * real in-memory auth store: first sign-in creates a password-less account with mapped roles and a
 * directory row; later sign-ins follow the directory's groups; accounts that are not the directory's
 * are never taken over by email.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { provisionDirectoryAccount, type DirectoryUser } from '../../../services/auth/src/domain/directory-login.js';
import { openAuthStore } from '../../../services/auth/src/store/auth-store.js';
import { isDomainError } from '../../../services/shared/kit/domain-error.js';

const MAP = { 'Platform Admins': ['admin'] };
const alice: DirectoryUser = { dn: 'uid=alice,ou=people,dc=x', username: 'alice', email: 'alice@example.test', name: 'Alice', groups: ['Engineering', 'Platform Admins'] };

function store() {
  return openAuthStore({ dbDir: ':memory:', migrationsDir: join(process.cwd(), 'migrations') });
}
async function code(fn: () => unknown): Promise<string> {
  try { await fn(); } catch (e) { assert.ok(isDomainError(e)); return e.code; }
  assert.fail('expected a refusal');
}

test('first sign-in creates a password-less account with mapped roles; later ones follow the directory', async () => {
  const s = store();
  try {
    const u = await s.txAsync(() => provisionDirectoryAccount(s.users, s.directoryAccounts, alice, MAP, '2026-01-01T00:00:00.000Z'));
    assert.equal(u.password_hash, null);
    assert.deepEqual(u.roles, ['user', 'admin']);
    assert.deepEqual(s.directoryAccounts.get(u.id)?.groups, ['Engineering', 'Platform Admins']);
    const again = await s.txAsync(() => provisionDirectoryAccount(s.users, s.directoryAccounts, { ...alice, name: 'Alice B', groups: ['Engineering'] }, MAP, '2026-01-02T00:00:00.000Z'));
    assert.equal(again.id, u.id);
    assert.deepEqual(s.users.byId(u.id)?.roles, ['user'], 'leaving the mapped group drops its role at the next sign-in');
    assert.equal(s.users.byId(u.id)?.display_name, 'Alice B');
    assert.deepEqual(s.directoryAccounts.get(u.id)?.groups, ['Engineering']);
  } finally { s.close(); }
});

test("an account that is not the directory's is never taken over; an entry without mail is refused", async () => {
  const s = store();
  try {
    const now = '2026-01-01T00:00:00.000Z';
    const base = { display_name: 'x', roles: ['user'], disabled: false, created_at: now, updated_at: now };
    s.users.insert({ id: '01LOCALWITHPASSWORD0000000', email: 'alice@example.test', password_hash: 'scrypt$x', ...base });
    s.users.insert({ id: '01LOCALWITHOUTPASSWORD0000', email: 'bob@example.test', password_hash: null, ...base });
    assert.equal(await code(() => s.txAsync(() => provisionDirectoryAccount(s.users, s.directoryAccounts, alice, MAP, now))), 'directory_account_conflict');
    assert.equal(await code(() => s.txAsync(() => provisionDirectoryAccount(s.users, s.directoryAccounts, { ...alice, email: 'bob@example.test' }, MAP, now))), 'directory_account_conflict');
    assert.equal(await code(() => provisionDirectoryAccount(s.users, s.directoryAccounts, { ...alice, email: null }, MAP, now)), 'directory_email_missing');
    assert.equal(s.users.byEmail('alice@example.test')?.password_hash, 'scrypt$x');
  } finally { s.close(); }
});
