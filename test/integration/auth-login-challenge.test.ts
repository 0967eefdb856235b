/**
 * Issue 14 items 3-5: login challenges on the real auth service, driven as the gateway drives them
 * (through `LoginChallengeClient` with the gateway's service stamp) and answered by a phone
 * simulated with jose. Covers: who needs a second factor and by which methods; number matching
 * (approve, wrong number, deny, "this wasn't me"); verify pending -> approved once -> challenge_used;
 * expiry; offline (TOTP) and recovery codes each once; wrong codes; one pending challenge per user;
 * push-fatigue throttling; revoked devices and replayed proofs; the long poll and the event stream;
 * and the internal routes refusing every caller but the gateway.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AuthCallError, LoginChallengeClient } from '../../services/auth/src/client.js';
import { servicePrincipal } from '../../services/shared/identity/principal.js';
import type { Principal } from '../../services/shared/identity/principal.js';
import { SimDevice, pairPhone, parseEnrollmentUrl, postJson, twoFactorWorld, type TwoFactorWorld } from '../helpers/second-factor.js';

/** The code an `AuthCallError` carries (or undefined when the call succeeded). */
async function failure(p: Promise<unknown>): Promise<{ status: number; code: string } | undefined> {
  try { await p; } catch (err) {
    if (err instanceof AuthCallError) return { status: err.status, code: err.code };
    throw err;
  }
  return undefined;
}

describe('login challenges', () => {
  let w: TwoFactorWorld;
  let gw: LoginChallengeClient;
  const login = { client_ip: '198.51.100.20', user_agent: 'Mozilla/5.0 (X11) Firefox/128.0' };

  /** A fresh user with one paired phone. */
  async function enrolled(email: string): Promise<{ id: string; p: Principal; phone: SimDevice }> {
    const u = await w.addUser(email);
    return { ...u, phone: await pairPhone(w, u.p) };
  }

  before(async () => {
    w = await twoFactorWorld({ challengeTtlSeconds: 60 });
    gw = new LoginChallengeClient({ baseUrl: w.base, service: 'gateway', tenantId: w.cfg.tenantId, principalKeys: w.cfg.principalKeys });
  });
  after(async () => { await w.close(); });

  it('requires nothing of a user without a device; push and totp (and recovery codes) once paired', async () => {
    const u = await w.addUser('plain@example.test');
    assert.deepEqual(await gw.required(u.id), { required: false, enrolled: false, enforced: false, methods: [] });
    assert.deepEqual(await gw.required('01UNKNOWNUSER0000000000000'), { required: false, enrolled: false, enforced: false, methods: [] });
    await pairPhone(w, u.p);
    assert.deepEqual(await gw.required(u.id), { required: true, enrolled: true, enforced: false, methods: ['push', 'totp'] });
    await w.call('POST', '/v1/account/devices/recovery-codes', { as: u.p });
    assert.deepEqual((await gw.required(u.id)).methods, ['push', 'totp', 'recovery_code']);
  });

  it('approves with the right number: pending, then approved exactly once, then challenge_used', async () => {
    const u = await enrolled('ok@example.test');
    const c = await gw.create({ user_id: u.id, ...login });
    assert.match(c.challenge_id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.deepEqual(c.methods, ['push', 'totp']);
    assert.ok(c.number_match >= 10 && c.number_match <= 99);
    assert.equal(c.enrollment_url, undefined);
    assert.deepEqual(await gw.verify({ challenge_id: c.challenge_id }), { status: 'pending' });

    const list = await u.phone.pending(w.base);
    assert.equal(list.status, 200);
    assert.equal(list.body.items.length, 1);
    const item = list.body.items[0];
    assert.equal(item.challenge_id, c.challenge_id);
    assert.equal(item.numbers.length, 3);
    assert.equal(new Set(item.numbers).size, 3);
    assert.ok(item.numbers.includes(c.number_match));
    assert.deepEqual(item.user, { email: 'ok@example.test', name: 'ok' });
    assert.equal(item.client_ip, login.client_ip);
    assert.equal(item.user_agent, login.user_agent);

    const ans = await u.phone.send(w.base, c.challenge_id, 'approve', c.number_match);
    assert.deepEqual(ans.body, { challenge_id: c.challenge_id, status: 'approved' });
    assert.deepEqual(await gw.verify({ challenge_id: c.challenge_id }), { status: 'approved', user_id: u.id });
    assert.deepEqual(await failure(gw.verify({ challenge_id: c.challenge_id })), { status: 409, code: 'challenge_used' });
    const again = await u.phone.send(w.base, c.challenge_id, 'approve', c.number_match);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'challenge_answered');
    assert.deepEqual((await u.phone.pending(w.base)).body.items, []);
    await w.waitFor('audit', (a) => a.action === 'auth.challenge.approved' && a.resource_id === c.challenge_id);
    await w.waitFor('audit', (a) => a.action === 'auth.challenge.created' && a.resource_id === c.challenge_id);
  });

  it('denies on a wrong number, on deny, and on "this wasn\'t me" (which notifies and audits)', async () => {
    const u = await enrolled('deny@example.test');
    const c1 = await gw.create({ user_id: u.id, ...login });
    const wrong = [10, 11, 12].find((n) => n !== c1.number_match)!;
    const r1 = await u.phone.send(w.base, c1.challenge_id, 'approve', wrong);
    assert.deepEqual(r1.body, { challenge_id: c1.challenge_id, status: 'denied' });
    assert.deepEqual(await failure(gw.verify({ challenge_id: c1.challenge_id })), { status: 403, code: 'challenge_denied' });

    const c2 = await gw.create({ user_id: u.id, ...login });
    assert.equal((await u.phone.send(w.base, c2.challenge_id, 'deny')).body.status, 'denied');
    assert.deepEqual(await failure(gw.verify({ challenge_id: c2.challenge_id })), { status: 403, code: 'challenge_denied' });

    const c3 = await gw.create({ user_id: u.id, ...login });
    assert.equal((await u.phone.send(w.base, c3.challenge_id, 'report')).body.status, 'denied');
    assert.deepEqual(await failure(gw.verify({ challenge_id: c3.challenge_id })), { status: 403, code: 'challenge_denied' });
    const [notice] = await w.waitFor('notifications', (n) => n.kind === 'login_reported' && n.user_id === u.id);
    assert.equal(notice!.payload!.challenge_id, c3.challenge_id);
    await w.waitFor('audit', (a) => a.action === 'auth.challenge.reported' && a.resource_id === c3.challenge_id);
    const [denied] = await w.waitFor('audit', (a) => a.action === 'auth.challenge.denied' && a.resource_id === c1.challenge_id);
    assert.equal(denied!.detail!.reason, 'wrong_number');
  });

  it('expires: an unanswered challenge past its TTL cannot be approved or released (410)', async () => {
    const u = await enrolled('late@example.test');
    const c = await gw.create({ user_id: u.id, ...login });
    w.clock.advance(61_000);
    const ans = await u.phone.send(w.base, c.challenge_id, 'approve', c.number_match);
    assert.equal(ans.status, 410);
    assert.equal(ans.body.code, 'challenge_expired');
    assert.deepEqual(await failure(gw.verify({ challenge_id: c.challenge_id })), { status: 410, code: 'challenge_expired' });
    assert.deepEqual(await failure(gw.verify({ challenge_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' })), { status: 410, code: 'challenge_expired' });
  });

  it('releases on a TOTP code once; the same code (step) is refused afterwards (401 code_invalid)', async () => {
    const u = await enrolled('totp@example.test');
    const c1 = await gw.create({ user_id: u.id, ...login });
    const code = u.phone.code();
    assert.deepEqual(await gw.verify({ challenge_id: c1.challenge_id, code }), { status: 'approved', user_id: u.id });
    assert.deepEqual(await failure(gw.verify({ challenge_id: c1.challenge_id })), { status: 409, code: 'challenge_used' });
    const c2 = await gw.create({ user_id: u.id, ...login });
    assert.deepEqual(await failure(gw.verify({ challenge_id: c2.challenge_id, code })), { status: 401, code: 'code_invalid' });
    // The previous step's code is inside the ±1 window but older than the used step: refused too.
    assert.deepEqual(await failure(gw.verify({ challenge_id: c2.challenge_id, code: u.phone.code(w.clock.now() - 30_000) })), { status: 401, code: 'code_invalid' });
    // A code two steps away is outside the window.
    assert.deepEqual(await failure(gw.verify({ challenge_id: c2.challenge_id, code: u.phone.code(w.clock.now() + 90_000) })), { status: 401, code: 'code_invalid' });
    // The next step's code (clock skew of the phone) works once.
    assert.deepEqual(await gw.verify({ challenge_id: c2.challenge_id, code: u.phone.code(w.clock.now() + 30_000) }), { status: 'approved', user_id: u.id });
    await w.waitFor('audit', (a) => a.action === 'auth.challenge.code_failed' && a.resource_id === c2.challenge_id, 2);
  });

  it('releases on a recovery code once (any case, with or without dashes); a used one is code_invalid', async () => {
    const u = await enrolled('recovery@example.test');
    const codes: string[] = (await w.call('POST', '/v1/account/devices/recovery-codes', { as: u.p })).body.codes;
    const c1 = await gw.create({ user_id: u.id, ...login });
    assert.deepEqual(c1.methods, ['push', 'totp', 'recovery_code']);
    assert.deepEqual(await gw.verify({ challenge_id: c1.challenge_id, code: codes[0]!.toUpperCase().replace(/-/g, ' ') }), { status: 'approved', user_id: u.id });
    const c2 = await gw.create({ user_id: u.id, ...login });
    assert.deepEqual(await failure(gw.verify({ challenge_id: c2.challenge_id, code: codes[0]! })), { status: 401, code: 'code_invalid' });
    assert.deepEqual(await gw.verify({ challenge_id: c2.challenge_id, code: codes[1]! }), { status: 'approved', user_id: u.id });
    assert.equal((await w.call('GET', '/v1/account/devices/recovery-codes', { as: u.p })).body.remaining, 8);
  });

  it('denies a challenge after five wrong codes', async () => {
    const u = await enrolled('guess@example.test');
    const c = await gw.create({ user_id: u.id, ...login });
    const right = u.phone.code();
    const wrongCode = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    for (const bad of ['000000x', 'abcd-efgh-ijkl', wrongCode, '12', wrongCode]) {
      assert.deepEqual(await failure(gw.verify({ challenge_id: c.challenge_id, code: bad })), { status: 401, code: 'code_invalid' });
    }
    assert.deepEqual(await failure(gw.verify({ challenge_id: c.challenge_id, code: right })), { status: 403, code: 'challenge_denied' });
  });

  it('keeps one pending challenge per user: a new one expires the previous', async () => {
    const u = await enrolled('one@example.test');
    const c1 = await gw.create({ user_id: u.id, ...login });
    const c2 = await gw.create({ user_id: u.id, ...login });
    assert.deepEqual(await failure(gw.verify({ challenge_id: c1.challenge_id })), { status: 410, code: 'challenge_expired' });
    const items = (await u.phone.pending(w.base)).body.items;
    assert.deepEqual(items.map((i: { challenge_id: string }) => i.challenge_id), [c2.challenge_id]);
    const late = await u.phone.send(w.base, c1.challenge_id, 'approve', c1.number_match);
    assert.equal(late.status, 410);
    assert.equal(late.body.code, 'challenge_expired');
  });

  it('throttles push fatigue: the sixth challenge in ten minutes is 429 challenge_throttled with Retry-After', async () => {
    const u = await enrolled('flood@example.test');
    for (let i = 0; i < 5; i++) await gw.create({ user_id: u.id, ...login });
    const raw = await w.call('POST', '/login-challenge', { as: w.gateway(), body: { user_id: u.id, ...login } });
    assert.equal(raw.status, 429);
    assert.equal(raw.body.code, 'challenge_throttled');
    const retry = Number(raw.headers.get('retry-after'));
    assert.ok(retry > 0 && retry <= 600, `retry-after ${retry}`);
    w.clock.advance(601_000);
    assert.ok((await gw.create({ user_id: u.id, ...login })).challenge_id);
  });

  it('refuses answers and proofs of a revoked device (401 device_revoked), and replayed proofs (401 device_proof_replayed)', async () => {
    const u = await enrolled('revoked@example.test');
    const second = await pairPhone(w, u.p);
    const c = await gw.create({ user_id: u.id, ...login });
    const proof = await u.phone.proof();
    const first = await fetch(`${w.base}/dirauth/pair/challenges`, { headers: { 'x-device-proof': proof } });
    assert.equal(first.status, 200);
    const replay = await fetch(`${w.base}/dirauth/pair/challenges`, { headers: { 'x-device-proof': proof } });
    assert.equal(replay.status, 401);
    assert.equal((await replay.json() as { code: string }).code, 'device_proof_replayed');
    const answer = await u.phone.answer(c.challenge_id, 'deny');
    const url = `${w.base}/dirauth/pair/challenges/${c.challenge_id}/answer`;
    assert.equal((await w.call('DELETE', `/v1/account/devices/${u.phone.device_id}`, { as: u.p })).status, 204);
    const r = await postJson(url, { answer });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'device_revoked');
    assert.equal((await u.phone.pending(w.base)).body.code, 'device_revoked');
    // The other phone still answers; a replayed answer is refused before it could count twice.
    const ok = await second.answer(c.challenge_id, 'approve', c.number_match);
    assert.equal((await postJson(url, { answer: ok })).body.status, 'approved');
    const again = await postJson(url, { answer: ok });
    assert.equal(again.status, 401);
    assert.equal(again.body.code, 'device_proof_replayed');
  });

  it('refuses device proofs bound to another route, audience or key, and missing ones (401 device_proof_invalid)', async () => {
    const u = await enrolled('proofs@example.test');
    const thief = await SimDevice.create(w.clock.now);
    const bad = [
      await u.phone.proof('POST'),
      await u.phone.proof('GET', '/dirauth/pair/enroll'),
      await u.phone.proof('GET', '/dirauth/pair/challenges', { aud: 'https://evil.example/dirauth/pair' }),
      await u.phone.proof('GET', '/dirauth/pair/challenges', { key: thief.privateKey }),
      await u.phone.proof('GET', '/dirauth/pair/challenges', { jti: 'short' }),
      await u.phone.proof('GET', '/dirauth/pair/challenges', { exp: Math.floor(w.clock.now() / 1000) + 600 }),
      await u.phone.proof('GET', '/dirauth/pair/challenges', { kid: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }),
    ];
    for (const proof of bad) {
      const res = await fetch(`${w.base}/dirauth/pair/challenges`, { headers: { 'x-device-proof': proof } });
      assert.equal(res.status, 401);
      assert.equal((await res.json() as { code: string }).code, 'device_proof_invalid');
    }
    const none = await fetch(`${w.base}/dirauth/pair/challenges`);
    assert.equal(none.status, 401);
    // Another user's phone cannot answer this user's challenge.
    const other = await enrolled('other@example.test');
    const c = await gw.create({ user_id: u.id, ...login });
    const r = await other.phone.send(w.base, c.challenge_id, 'approve', c.number_match);
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'challenge_not_found');
  });

  it('long-polls: answers as soon as a challenge is created, or empty when the wait ends', async () => {
    const u = await enrolled('poll@example.test');
    const t0 = Date.now();
    const empty = await u.phone.pending(w.base, '?wait=1');
    assert.deepEqual(empty.body, { items: [] });
    assert.ok(Date.now() - t0 >= 900, 'waited about a second');
    const waiting = u.phone.pending(w.base, '?wait=20');
    await new Promise((r) => setTimeout(r, 200));
    const c = await gw.create({ user_id: u.id, ...login });
    const t1 = Date.now();
    const got = await waiting;
    assert.ok(Date.now() - t1 < 1500, 'woken by the new challenge');
    assert.equal(got.body.items[0].challenge_id, c.challenge_id);
  });

  it('streams challenges as server-sent events (proof in the query), ending when the proof expires', async () => {
    const u = await enrolled('sse@example.test');
    const c1 = await gw.create({ user_id: u.id, ...login });
    const iat = Math.floor(w.clock.now() / 1000);
    const proof = await u.phone.proof('GET', '/dirauth/pair/challenges', { exp: iat + 3 });
    const res = await fetch(`${w.base}/dirauth/pair/challenges?proof=${proof}`, { headers: { accept: 'text/event-stream' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const decoder = new TextDecoder();
    const readUntil = async (pred: () => boolean): Promise<void> => {
      while (!pred()) {
        const { value, done } = await reader.read();
        if (done) return;
        text += decoder.decode(value);
      }
    };
    await readUntil(() => text.includes(c1.challenge_id));
    const c2 = await gw.create({ user_id: u.id, ...login });
    await readUntil(() => text.includes(c2.challenge_id));
    const events = text.split('\n\n').filter((b) => b.startsWith('event: challenge'));
    assert.equal(events.length, 2);
    const item = JSON.parse(events[1]!.split('\ndata: ')[1]!);
    assert.equal(item.challenge_id, c2.challenge_id);
    assert.equal(item.numbers.length, 3);
    const t0 = Date.now();
    await readUntil(() => false);
    assert.ok(Date.now() - t0 < 5000, 'the stream ended with the proof');
    const reuse = await fetch(`${w.base}/dirauth/pair/challenges?proof=${proof}`);
    assert.equal(reuse.status, 401, 'an EventSource reconnect needs a fresh proof');
  });

  it('offers enrollment to an enforced user without a device; the new phone approves that very challenge; admins are not enforced', async () => {
    const admin = await w.admin();
    await w.call('PUT', '/v1/admin/users/second-factor', { as: admin.p, body: { enforced: true } });
    try {
      const u = await w.addUser('forced@example.test');
      assert.deepEqual(await gw.required(u.id), { required: true, enrolled: false, enforced: true, methods: ['enroll'] });
      assert.deepEqual(await gw.required(admin.id), { required: false, enrolled: false, enforced: false, methods: [] });
      const c = await gw.create({ user_id: u.id, ...login });
      assert.deepEqual(c.methods, ['enroll']);
      assert.ok(c.enrollment_url);
      assert.ok(parseEnrollmentUrl(c.enrollment_url!).token);
      const phone = await SimDevice.create(w.clock.now);
      assert.equal((await phone.pair(w.base, c.enrollment_url!)).status, 201);
      assert.equal((await phone.send(w.base, c.challenge_id, 'approve', c.number_match)).body.status, 'approved');
      assert.deepEqual(await gw.verify({ challenge_id: c.challenge_id }), { status: 'approved', user_id: u.id });
    } finally {
      await w.call('PUT', '/v1/admin/users/second-factor', { as: admin.p, body: { enforced: false } });
    }
  });

  it('refuses every caller of the internal routes but service:gateway (403 forbidden), before the body is read', async () => {
    const u = await enrolled('guarded@example.test');
    const admin = await w.admin();
    const callers: Array<[string, Principal | undefined, number, string]> = [
      ['admin user', admin.p, 403, 'forbidden'],
      ['the user', u.p, 403, 'forbidden'],
      ['another service', servicePrincipal('knowledge', w.cfg.tenantId), 403, 'forbidden'],
      ['a user named like the gateway', { ...u.p, id: 'service:gateway' }, 403, 'forbidden'],
      ['nobody', undefined, 401, 'principal_missing'],
    ];
    for (const [who, as, status, code] of callers) {
      for (const [method, path, body] of [
        ['GET', `/login-challenge/required?user_id=${u.id}`, undefined],
        ['POST', '/login-challenge', { user_id: u.id, ...login }],
        ['POST', '/login-challenge/verify', { challenge_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }],
      ] as const) {
        const r = await w.call(method, path, { as, body });
        assert.equal(r.status, status, `${who} ${method} ${path}`);
        assert.equal(r.body.code, code, `${who} ${method} ${path}`);
      }
    }
    const kn = new LoginChallengeClient({ baseUrl: w.base, service: 'knowledge', tenantId: w.cfg.tenantId, principalKeys: w.cfg.principalKeys });
    assert.deepEqual(await failure(kn.required(u.id)), { status: 403, code: 'forbidden' });
  });
});

describe('device channel at shutdown', () => {
  it('ends open streams and long polls so the service closes at once', async () => {
    const w = await twoFactorWorld();
    const u = await w.addUser('bye@example.test');
    const phone = await pairPhone(w, u.p);
    const res = await fetch(`${w.base}/dirauth/pair/challenges`, { headers: { accept: 'text/event-stream', 'x-device-proof': await phone.proof() } });
    assert.equal(res.status, 200);
    const poll = phone.pending(w.base, '?wait=25').catch(() => null);
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    await w.close();
    assert.ok(Date.now() - t0 < 5000, `close took ${Date.now() - t0} ms`);
    await poll;
    await res.body?.cancel().catch(() => undefined);
  });
});
