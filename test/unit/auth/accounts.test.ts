import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { firstStart } from '../../../services/auth/src/domain/bootstrap.js';
import { sha256Hex } from '../../../services/auth/src/domain/tokens.js';
import type { Principal } from '../../../services/shared/identity/principal.js';
import { ISSUER, addUser, codeOf, world } from '../../helpers/auth.js';

type World = Awaited<ReturnType<typeof world>>;
const boot = (w: World, bootstrapAdmin: { email: string; password: string } | null = null) => firstStart({
  users: w.store.users, handoffs: w.store.handoffs, file: w.file, handoff: w.handoff, hasher: w.hasher, tx: w.store.txAsync, clock: w.clock.now, bootstrapAdmin,
});

describe('UserService', () => {
  it('normalises input and rejects duplicates case-insensitively', async () => {
    const w = await world();
    const u = await w.users.create({ email: 'Zoe@Example.TEST', display_name: '  Zoe ', roles: ['user', 'user', 'platform_admin'] });
    assert.equal(u.email, 'zoe@example.test');
    assert.equal(u.display_name, 'Zoe');
    assert.deepEqual(u.roles, ['user', 'platform_admin']);
    assert.equal(u.has_password, false);
    assert.equal(await codeOf(w.users.create({ email: 'ZOE@example.test', display_name: 'Z' })), 'user_exists');
    assert.equal(await codeOf(w.users.create({ email: 'bad', display_name: 'Z' })), 'invalid_request');
    assert.equal(await codeOf(w.users.create({ email: 'a@b', display_name: 'Z', roles: ['Bad Role'] })), 'invalid_request');
    assert.equal(await codeOf(w.users.create({ email: 'a@b', display_name: 'Z', password: 'short' })), 'invalid_request');
    assert.equal(await codeOf(w.users.create({ email: 'a@b', display_name: '   ' })), 'invalid_request');
  });

  it('pages by id with a cursor', async () => {
    const w = await world();
    for (let i = 0; i < 5; i++) await w.users.create({ email: `p${i}@example.test`, display_name: `P${i}` });
    const seen: string[] = [];
    let cursor: string | null = null;
    for (;;) {
      const page = await w.users.list(cursor, 2);
      seen.push(...page.items.map((u) => u.email));
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
    }
    assert.deepEqual(seen, ['p0', 'p1', 'p2', 'p3', 'p4'].map((p) => `${p}@example.test`));
  });

  it('revokes sessions on disable and on a password change, and forbids self-demotion', async () => {
    const w = await world();
    const admin = await w.users.create({ email: 'root@example.test', display_name: 'Root', roles: ['admin'] });
    const u = await addUser(w, 'sam@example.test', 'sam-password');
    const t = await w.tokens.issue(u);
    await w.users.update(admin.id, u.id, { password: 'sam-password-2' });
    assert.equal(await codeOf(w.tokens.rotate(t.refresh_token)), 'refresh_token_invalid');
    const t2 = await w.tokens.issue(w.store.users.byId(u.id)!);
    await w.users.update(admin.id, u.id, { disabled: true });
    assert.notEqual(w.store.refresh.byHash(sha256Hex(t2.refresh_token))!.revoked_at, null);
    assert.equal(await codeOf(w.users.update(admin.id, admin.id, { disabled: true })), 'cannot_demote_self');
    assert.equal(await codeOf(w.users.update(admin.id, admin.id, { roles: ['user'] })), 'cannot_demote_self');
    assert.equal(await codeOf(w.users.update(admin.id, 'missing', { display_name: 'x' })), 'not_found');
    assert.equal((await w.users.update(admin.id, admin.id, { roles: ['admin', 'user'] })).roles.length, 2);
  });

  it('answers the profile from the store for local principals and from the principal otherwise', async () => {
    const w = await world();
    const u = await addUser(w, 'pat@example.test', 'pat-password');
    const p: Principal = { id: u.id, tenant_id: 't', roles: ['user'], groups: [], auth_method: 'password', local_iss: ISSUER, iat: 0, exp: 1 };
    assert.equal((await w.users.profile(p, ISSUER)).local, true);
    assert.equal((await w.users.profile(p, ISSUER)).created_at, u.created_at);
    assert.equal((await w.users.profile({ ...p, local_iss: 'https://elsewhere' }, ISSUER)).local, false);
    w.store.users.save({ ...u, disabled: true });
    assert.equal(await codeOf(() => w.users.profile(p, ISSUER)), 'account_disabled');
  });
});

describe('first start', () => {
  it('creates the bootstrap admin once and never overwrites its password', async () => {
    const w = await world();
    const r = await boot(w, { email: 'Boss@Example.test', password: 'first-password' });
    assert.equal(r.kind, 'bootstrap_admin_created');
    const u = w.store.users.byEmail('boss@example.test')!;
    assert.deepEqual(u.roles, ['admin', 'user']);
    assert.equal((await boot(w, { email: 'boss@example.test', password: 'other-password' })).kind, 'none');
    assert.equal(await w.hasher.verify('first-password', w.store.users.byId(u.id)!.password_hash), true);
    assert.equal(w.file.exists(), false);
  });

  it('issues an installer handoff when there are no users, exchangeable once', async () => {
    const w = await world();
    const r = await boot(w);
    assert.equal(r.kind, 'installer_handoff_issued');
    const id = w.file.doc!.handoff_id;
    assert.equal(await w.handoff.pending(), true);
    assert.equal(w.store.users.byEmail('admin@localhost')!.password_hash, null);
    assert.equal((await boot(w)).kind, 'none', 'a restart with the file present does nothing');
    const tokens = await w.handoff.exchange(id);
    assert.equal(typeof tokens.access_token, 'string');
    assert.equal(w.file.exists(), false);
    assert.equal(await codeOf(w.handoff.exchange(id)), 'handoff_invalid');
    assert.equal((await boot(w)).kind, 'none', 'a spent handoff is not re-issued');
  });

  it('replaces a pending handoff whose file vanished, and the old id stops working', async () => {
    const w = await world();
    await boot(w);
    const old = w.file.doc!.handoff_id;
    w.file.remove();
    assert.equal((await boot(w)).kind, 'installer_handoff_issued');
    assert.notEqual(w.file.doc!.handoff_id, old);
    assert.equal(await codeOf(w.handoff.exchange(old)), 'handoff_invalid');
    assert.equal(await codeOf(w.handoff.exchange(w.file.doc!.handoff_id)), undefined);
  });

  it('writes no user when the handoff file cannot be written', async () => {
    const w = await world();
    w.file.write = () => { throw new Error('disk full'); };
    await assert.rejects(boot(w), /disk full/);
    assert.equal(w.store.users.count(), 0);
    assert.equal(await w.handoff.pending(), false);
  });
});
