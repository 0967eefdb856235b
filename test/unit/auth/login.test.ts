import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PasswordHasher } from '../../../services/auth/src/domain/passwords.js';
import { AUTH_ERRORS } from '../../../services/auth/src/contracts.js';
import { DomainError, statusOf } from '../../../services/shared/kit/domain-error.js';
import { addUser, codeOf, world } from '../../helpers/auth.js';

describe('LoginService', () => {
  it('logs in case-insensitively and upgrades an old hash', async () => {
    const w = await world();
    const u = await addUser(w, 'bob@example.test', 'bob-password');
    w.store.users.save({ ...u, password_hash: await new PasswordHasher(2048).hash('bob-password') });
    const t = await w.login.login(' BOB@example.test ', 'bob-password', '10.0.0.1');
    assert.equal(t.token_type, 'Bearer');
    assert.match(w.store.users.byId(u.id)!.password_hash!, /^scrypt\$1024\$/);
  });

  it('answers 429 with the exact Retry-After once an account and source reach the limit, without checking the password', async () => {
    // Issue 11 item 2: counted per account AND source; delays then double from 1 s.
    const w = await world();
    await addUser(w, 'carol@example.test', 'carol-password');
    for (let i = 0; i < 3; i++) assert.equal(await codeOf(w.login.login('carol@example.test', 'nope', '10.0.1.1')), 'invalid_credentials');
    let err: unknown;
    try { await w.login.login('carol@example.test', 'carol-password', '10.0.1.1'); } catch (e) { err = e; }
    // The domain throws a typed error; its status comes from the service's one error table.
    assert.ok(err instanceof DomainError);
    assert.equal(statusOf(AUTH_ERRORS, err.code), 429);
    assert.equal(err.code, 'login_throttled');
    assert.equal(err.headers?.['retry-after'], '1');
    // Throttled attempts are not counted; after the delay one more guess is allowed, then 2 s.
    w.clock.advance(1000);
    assert.equal(await codeOf(w.login.login('carol@example.test', 'nope', '10.0.1.1')), 'invalid_credentials');
    try { await w.login.login('carol@example.test', 'carol-password', '10.0.1.1'); } catch (e) { err = e; }
    assert.equal((err as DomainError).headers?.['retry-after'], '2');
    w.clock.advance(2000);
    const ok = await w.login.login('carol@example.test', 'carol-password', '10.0.1.1');
    assert.equal(typeof ok.access_token, 'string');
    // ... and the success forgot that source's failures for the account.
    assert.equal(w.store.throttle.get('carol@example.test', '10.0.1.1'), null);
  });

  it('does not let failures from one source delay the account from another', async () => {
    const w = await world();
    await addUser(w, 'owner@example.test', 'owner-password');
    for (let i = 0; i < 10; i++) await codeOf(w.login.login('owner@example.test', 'guess', '203.0.113.9'));
    assert.equal(await codeOf(w.login.login('owner@example.test', 'owner-password', '203.0.113.9')), 'login_throttled');
    assert.equal(await codeOf(w.login.login('owner@example.test', 'owner-password', '198.51.100.4')), undefined);
  });

  it('throttles unknown accounts exactly like known ones', async () => {
    const w = await world();
    for (let i = 0; i < 3; i++) await codeOf(w.login.login('ghost@example.test', 'x', '10.0.2.1'));
    assert.equal(await codeOf(w.login.login('ghost@example.test', 'x', '10.0.2.1')), 'login_throttled');
  });

  it('throttles a client IP across accounts', async () => {
    const w = await world();
    await addUser(w, 'dave@example.test', 'dave-password');
    for (let i = 0; i < 5; i++) await codeOf(w.login.login(`u${i}@example.test`, 'x', '10.0.3.1'));
    assert.equal(await codeOf(w.login.login('dave@example.test', 'dave-password', '10.0.3.1')), 'login_throttled');
    assert.equal(await codeOf(w.login.login('dave@example.test', 'dave-password', '10.0.3.2')), undefined);
  });

  it('counts parallel guesses before the password is checked', async () => {
    const w = await world();
    await addUser(w, 'erin@example.test', 'erin-password');
    const codes = await Promise.all(Array.from({ length: 6 }, (_, i) => codeOf(w.login.login('erin@example.test', `guess-${i}`, '10.0.4.1'))));
    assert.equal(codes.filter((c) => c === 'invalid_credentials').length, 3);
    assert.equal(codes.filter((c) => c === 'login_throttled').length, 3);
  });

  it('reveals a disabled account only after a correct password, and refuses password-less accounts', async () => {
    const w = await world();
    const u = await addUser(w, 'frank@example.test', 'frank-password');
    w.store.users.save({ ...u, disabled: true });
    assert.equal(await codeOf(w.login.login('frank@example.test', 'wrong', '10.0.5.1')), 'invalid_credentials');
    assert.equal(await codeOf(w.login.login('frank@example.test', 'frank-password', '10.0.5.1')), 'account_disabled');
    await addUser(w, 'nopw@example.test', null);
    assert.equal(await codeOf(w.login.login('nopw@example.test', '', '10.0.5.2')), 'invalid_credentials');
  });

  it('refuses every login when password login is disabled', async () => {
    const w = await world({ passwordLoginEnabled: false });
    await addUser(w, 'gina@example.test', 'gina-password');
    assert.equal(await codeOf(w.login.login('gina@example.test', 'gina-password', '10.0.6.1')), 'password_login_disabled');
  });
});
