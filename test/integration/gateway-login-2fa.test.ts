/**
 * The password login with a phone second factor, end to end through the gateway (issue 14 item 3;
 * spec "Mobile-push second factor", "States and transitions" login rows; DESIGN.md "Identity").
 * Real auth service and real gateway on ephemeral ports, a phone written against the protocol with
 * jose (test/helpers/phone-device.ts) talking only to the gateway's public `/dirauth/pair/*` routes:
 *
 * - without a paired device the login answers 200 tokens as before;
 * - with one, 202 `{challenge_id, methods, number_match, expires_at}` and no token anywhere in any
 *   202; `/v1/auth/login/2fa` answers 202 pending until the phone approves with the right number,
 *   then 200 tokens exactly once (a second release 409 `challenge_used`); a wrong number 403
 *   `challenge_denied`; a wrong offline code 401 `code_invalid`, the right one releases; a
 *   malformed challenge id 400, an unknown one 410, a body over 4 KiB 413;
 * - the device channel is public at the gateway (no bearer) and its server-sent events stream
 *   through the proxy unbuffered: a challenge reaches a stream opened before the login.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { TOTP } from 'otpauth';
import { start as startAuth } from '../../services/auth/src/index.js';
import { start as startGateway } from '../../services/gateway/src/index.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, authConfig, gatewayForAuth } from '../helpers/auth.js';
import { pairPhone, type PhoneDevice } from '../helpers/phone-device.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
interface Res { status: number; body: any; text: string; headers: Headers }

/**
 * No token of any kind may be in a 202 (tokens reach the browser only after the second factor); the
 * one JWS a 202 may carry is the enrollment token inside `enrollment_url` (an enforced user's pairing).
 */
function assertNoToken(r: Res): void {
  const rest = JSON.stringify({ ...(r.body as object), enrollment_url: undefined });
  assert.doesNotMatch(rest, /access_token|refresh_token|id_token|eyJ[\w-]+\.eyJ/, `a 202 carried a token: ${r.text}`);
  assert.doesNotMatch(r.text, /access_token|refresh_token|id_token/);
}

describe('login with a phone second factor through the gateway', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-2fa-gw-'));
  const authCfg = authConfig(dir);
  let auth: RunningService;
  let gw: RunningService;
  let base: string;

  before(async () => {
    auth = await startAuth(authCfg);
    // The gateway's own limit well above the 2fa route's 4 KiB (the helper's default is 4 KiB).
    gw = await startGateway({ ...gatewayForAuth(authCfg, `http://127.0.0.1:${auth.port}`), maxRequestBodyBytes: 1024 * 1024 });
    base = `http://127.0.0.1:${gw.port}`;
  });
  after(async () => {
    await gw?.close();
    await auth?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, opts: { body?: unknown; token?: string; raw?: string } = {}): Promise<Res> => {
    const headers: Record<string, string> = { 'user-agent': 'gateway-login-2fa-test' };
    if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(base + path, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
    const text = await res.text();
    let body: unknown = null;
    try { body = text ? JSON.parse(text) : null; } catch { body = text; }
    return { status: res.status, body, text, headers: res.headers };
  };
  const login = (username: string, password: string): Promise<Res> => call('POST', '/v1/auth/login', { body: { username, password } });
  const twoFa = async (challengeId: string, code?: string): Promise<Res> => {
    const r = await call('POST', '/v1/auth/login/2fa', { body: code === undefined ? { challenge_id: challengeId } : { challenge_id: challengeId, code } });
    if (r.status === 202) assertNoToken(r);
    return r;
  };
  /** A user with a paired phone. */
  const userWithPhone = async (email: string): Promise<{ password: string; phone: PhoneDevice }> => {
    const admin = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    assert.equal(admin.status, 200, admin.text);
    const password = `${email}-password`;
    const created = await call('POST', '/v1/admin/users', { token: admin.body.access_token, body: { email, display_name: email, password, roles: ['user'] } });
    assert.equal(created.status, 201, created.text);
    const first = await login(email, password);
    assert.equal(first.status, 200, 'no device yet: tokens as before');
    const pairing = await call('POST', '/v1/account/devices/pairing', { token: first.body.access_token });
    assert.equal(pairing.status, 201, pairing.text);
    return { password, phone: await pairPhone(base, pairing.body.enrollment_url as string) };
  };
  /** Log in, expecting a challenge. */
  const challenged = async (email: string, password: string): Promise<Res> => {
    const r = await login(email, password);
    assert.equal(r.status, 202, r.text);
    assertNoToken(r);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    return r;
  };

  it('no paired device: 200 tokens as before', async () => {
    const r = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.token_type, 'Bearer');
    assert.ok(r.body.access_token && r.body.refresh_token);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    assert.equal((await call('GET', '/v1/auth/verify', { token: r.body.access_token })).status, 200);
    const wrong = await login(ADMIN_EMAIL, 'not the password');
    assert.equal(wrong.status, 401, 'a wrong password answers as before');
  });

  it('a paired device: 202 challenge, pending until the phone approves the right number, tokens exactly once', async () => {
    const { password, phone } = await userWithPhone('push@example.test');
    const r = await challenged('push@example.test', password);
    assert.match(r.body.challenge_id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.ok(r.body.methods.includes('push') && r.body.methods.includes('totp'), JSON.stringify(r.body.methods));
    assert.ok(Number.isInteger(r.body.number_match) && r.body.number_match >= 10 && r.body.number_match <= 99);
    assert.ok(Date.parse(r.body.expires_at) > Date.now());
    const id = r.body.challenge_id as string;

    const pending = await twoFa(id);
    assert.equal(pending.status, 202);
    assert.deepEqual(pending.body, { status: 'pending' });

    const items = await phone.pending();
    const item = items.find((c) => c.challenge_id === id)!;
    assert.ok(item, 'the phone lists the challenge');
    assert.equal(item.numbers.length, 3);
    assert.ok(item.numbers.includes(r.body.number_match));
    assert.equal(item.user.email, 'push@example.test');
    assert.equal(item.user_agent, 'gateway-login-2fa-test', 'the phone shows where the login came from');
    assert.equal(item.client_ip, '127.0.0.1');

    const approved = await phone.answer(id, 'approve', r.body.number_match);
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.status, 'approved');

    const released = await twoFa(id);
    assert.equal(released.status, 200, released.text);
    assert.equal(released.headers.get('cache-control'), 'no-store');
    assert.equal(released.body.token_type, 'Bearer');
    const me = await call('GET', '/v1/auth/verify', { token: released.body.access_token });
    assert.equal(me.status, 200);
    assert.equal(me.body.email, 'push@example.test');

    const again = await twoFa(id);
    assert.ok(again.status === 409 || again.status === 410, `a second release: ${again.status}`);
    assert.equal(again.body.code, again.status === 409 ? 'challenge_used' : 'challenge_expired');
    assert.doesNotMatch(again.text, /access_token/);
  });

  it('a wrong number denies: 403 challenge_denied, no token', async () => {
    const { password, phone } = await userWithPhone('wrong@example.test');
    const r = await challenged('wrong@example.test', password);
    const item = (await phone.pending()).find((c) => c.challenge_id === r.body.challenge_id)!;
    const wrongNumber = item.numbers.find((n) => n !== r.body.number_match)!;
    const denied = await phone.answer(r.body.challenge_id, 'approve', wrongNumber);
    assert.equal(denied.body.status, 'denied');
    const res = await twoFa(r.body.challenge_id);
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'challenge_denied');
    assert.doesNotMatch(res.text, /access_token/);
  });

  it('the offline code: a wrong one 401 code_invalid, the right one releases once', async () => {
    const { password, phone } = await userWithPhone('totp@example.test');
    const r = await challenged('totp@example.test', password);
    const totp = new TOTP({ secret: phone.enrolled.totp.secret, algorithm: 'SHA1', digits: 6, period: 30 });
    const now = Date.now();
    const valid = new Set([-1, 0, 1].map((w) => totp.generate({ timestamp: now + w * 30_000 })));
    let wrong = '000000';
    while (valid.has(wrong)) wrong = String(Number(wrong) + 1).padStart(6, '0');
    const bad = await twoFa(r.body.challenge_id, wrong);
    assert.equal(bad.status, 401, bad.text);
    assert.equal(bad.body.code, 'code_invalid');
    const ok = await twoFa(r.body.challenge_id, totp.generate());
    assert.equal(ok.status, 200, ok.text);
    assert.ok(ok.body.access_token);
    assert.equal((await twoFa(r.body.challenge_id)).status, 409);
  });

  it('enforced, no device yet: 202 with methods ["enroll"] and a one-time enrollment URL; the phone paired with it releases this very login', async () => {
    const admin = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const email = 'enforced@example.test';
    const password = `${email}-password`;
    assert.equal((await call('POST', '/v1/admin/users', { token: admin.body.access_token, body: { email, display_name: email, password, roles: ['user'] } })).status, 201);
    const on = await call('PUT', '/v1/admin/users/second-factor', { token: admin.body.access_token, body: { enforced: true } });
    assert.equal(on.status, 200, on.text);
    try {
      const r = await challenged(email, password);
      assert.equal(r.body.methods[0], 'enroll');
      assert.match(r.body.enrollment_url, /\/m\/#pair\?token=/);
      assert.equal((await twoFa(r.body.challenge_id)).status, 202);
      const phone = await pairPhone(base, r.body.enrollment_url as string);
      assert.equal((await phone.answer(r.body.challenge_id, 'approve', r.body.number_match)).body.status, 'approved');
      const released = await twoFa(r.body.challenge_id);
      assert.equal(released.status, 200, released.text);
      assert.ok(released.body.access_token);
    } finally {
      await call('PUT', '/v1/admin/users/second-factor', { token: admin.body.access_token, body: { enforced: false } });
    }
  });

  it('the 2fa body: a malformed challenge id 400, an unknown one 410, a body over 4 KiB 413, no JSON 400', async () => {
    const malformed = await call('POST', '/v1/auth/login/2fa', { body: { challenge_id: '../../x' } });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.code, 'invalid_request');
    assert.equal(malformed.body.field, 'challenge_id');
    const unknown = await twoFa('01J0000000000000000000000A');
    assert.equal(unknown.status, 410);
    assert.equal(unknown.body.code, 'challenge_expired');
    const big = await call('POST', '/v1/auth/login/2fa', { raw: JSON.stringify({ challenge_id: '01J0000000000000000000000A', code: 'x'.repeat(5000) }) });
    assert.equal(big.status, 413);
    assert.equal(big.body.code, 'payload_too_large');
    assert.equal(big.body.limit_bytes, 4096);
    const notJson = await call('POST', '/v1/auth/login/2fa', { raw: 'challenge_id=1' });
    assert.equal(notJson.status, 400);
  });

  it('the device channel is public at the gateway (no bearer), and its events stream through unbuffered', async () => {
    const { password, phone } = await userWithPhone('sse@example.test');
    // A bad proof is auth's 401, not the gateway's token_missing: the route is public.
    const bad = await call('GET', '/dirauth/pair/challenges');
    assert.equal(bad.status, 401);
    assert.notEqual(bad.body.code, 'token_missing');
    assert.match(bad.body.code, /^device_proof/);

    // The phone's mobile tokens: the access token passes the gateway's bearer chain (issuer
    // `{public_url}/auth`), the refresh goes through the public pairing route.
    const mobile = await call('GET', '/v1/auth/verify', { token: phone.enrolled.access_token });
    assert.equal(mobile.status, 200, mobile.text);
    const refreshed = await call('POST', '/dirauth/pair/refresh', { body: { refresh_token: phone.enrolled.refresh_token } });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.ok(refreshed.body.access_token);

    const proof = await phone.proof('GET', '/dirauth/pair/challenges');
    const res = await request(`${base}/dirauth/pair/challenges`, { headers: { accept: 'text/event-stream', 'x-device-proof': proof } });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /text\/event-stream/);
    const seen: string[] = [];
    const arrived: { resolve?: (v: string) => void } = {};
    const firstEvent = new Promise<string>((resolve) => { arrived.resolve = resolve; });
    const reading = (async () => {
      let buf = '';
      for await (const chunk of res.body) {
        buf += (chunk as Buffer).toString('utf8');
        const events = buf.split('\n\n');
        buf = events.pop()!;
        for (const e of events) {
          if (e.startsWith('event: challenge')) { seen.push(e); arrived.resolve?.(e); }
        }
      }
    })().catch(() => undefined);
    // The stream is open and empty; now a login opens a challenge, which must arrive while it stays open.
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    const r = await challenged('sse@example.test', password);
    const event = await Promise.race([firstEvent, new Promise<string>((_, reject) => setTimeout(() => reject(new Error('no event within 3 s')), 3000))]);
    assert.ok(Date.now() - t0 < 3000);
    const data = JSON.parse(event.split('\n').find((l) => l.startsWith('data: '))!.slice('data: '.length)) as { challenge_id: string; numbers: number[] };
    assert.equal(data.challenge_id, r.body.challenge_id);
    assert.ok(data.numbers.includes(r.body.number_match));
    res.body.destroy();
    await reading;
    assert.equal(seen.length, 1);
  });
});
