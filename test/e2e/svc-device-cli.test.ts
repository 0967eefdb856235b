/**
 * `scripts/svc-device` against the real stack (issue 14 item 7): pairs by the enrollment URL (state
 * file mode 0600; a second use of the URL is refused), lists pending sign-ins as JSON lines, approves
 * with the right number (the browser's `/v1/auth/login/2fa` then releases the tokens exactly once),
 * a wrong number and `deny` deny, `report` ("this wasn't me") denies, `code` prints an offline code
 * that releases a sign-in, a flood of sign-ins is throttled, `refresh` rotates, and a replayed refresh
 * token revokes the device, which then can no longer list or approve. Over HTTPS on the LAN (the
 * gateway bound to this machine's network address, its self-signed certificate), pairing pins the
 * fingerprint the enrollment URL carries: a URL with another fingerprint is refused before anything
 * is sent (so the single-use token stays usable), the right one pairs and approves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { Agent, fetch as undiciFetch } from 'undici';
import { join } from 'node:path';
import { ADMIN, startStack, login } from '../helpers/stack.js';
import { passwordLogin, secondFactor, svcDevice } from './two-factor-support.js';

interface Challenge { challenge_id: string; methods: string[]; number_match: number; expires_at: string }

test('svc-device: pair, pending, approve, wrong number, deny, report, code, throttle, refresh and replay', async (t) => {
  const stack = await startStack();
  t.after(() => stack.stop());
  const url = stack.url;
  const state = join(mkdtempSync(join(tmpdir(), 'svc-device-')), 'device.json');

  // Before pairing the password alone signs in.
  const token = await login(url, ADMIN.email, ADMIN.password);
  const pairing = await fetch(`${url}/v1/account/devices/pairing`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  assert.equal(pairing.status, 201);
  const { enrollment_url, enrollment_id } = await pairing.json() as { enrollment_url: string; enrollment_id: string };

  const paired = await svcDevice(['pair', enrollment_url, '--state', state, '--name', 'CLI device']);
  assert.equal(paired.code, 0, paired.stderr);
  const pairedLine = JSON.parse(paired.lines[0]!) as { device_id: string; user: { email: string } };
  assert.equal(pairedLine.user.email, ADMIN.email);
  assert.equal(statSync(state).mode & 0o777, 0o600, 'the state file holds a private key: mode 0600');
  const saved = JSON.parse(readFileSync(state, 'utf8')) as Record<string, unknown>;
  for (const k of ['api_base', 'device_id', 'private_jwk', 'public_jwk', 'access_token', 'refresh_token', 'totp', 'fingerprint']) assert.ok(k in saved, k);
  const status = await fetch(`${url}/v1/account/devices/pairing/${enrollment_id}`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal((await status.json() as { state: string }).state, 'paired');

  const again = await svcDevice(['pair', enrollment_url, '--state', join(tmpdir(), `svc-device-again-${process.pid}.json`)]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /^svc-device: enrollment_used: /);

  const challenge = async (): Promise<Challenge> => {
    const r = await passwordLogin(url, ADMIN.email, ADMIN.password);
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.equal('access_token' in r.body || 'refresh_token' in r.body, false, 'no token before the second factor');
    return r.body as unknown as Challenge;
  };

  // 1. Approve with the right number: released exactly once.
  const c1 = await challenge();
  assert.ok(c1.methods.includes('push') && c1.methods.includes('totp'));
  assert.equal((await secondFactor(url, c1.challenge_id)).status, 202);
  const pending = await svcDevice(['pending', '--state', state]);
  assert.equal(pending.code, 0, pending.stderr);
  const items = pending.lines.map((l) => JSON.parse(l) as { challenge_id: string; numbers: number[]; user: { email: string }; client_ip: string; expires_at: string });
  const item = items.find((i) => i.challenge_id === c1.challenge_id)!;
  assert.ok(item, 'the pending sign-in is listed');
  assert.equal(item.numbers.length, 3);
  assert.ok(item.numbers.includes(c1.number_match));
  assert.equal(item.user.email, ADMIN.email);
  const ok = await svcDevice(['approve', c1.challenge_id, '--number', String(c1.number_match), '--state', state]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.lines[0]!), { challenge_id: c1.challenge_id, status: 'approved' });
  const released = await secondFactor(url, c1.challenge_id);
  assert.equal(released.status, 200);
  assert.equal(typeof released.body.access_token, 'string');
  const twice = await secondFactor(url, c1.challenge_id);
  assert.equal(twice.status, 409);
  assert.equal(twice.body.code, 'challenge_used');

  // 2. A wrong number denies.
  const c2 = await challenge();
  const wrongNumber = c2.number_match === 99 ? 98 : c2.number_match + 1;
  const wrong = await svcDevice(['approve', c2.challenge_id, '--number', String(wrongNumber), '--state', state]);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /challenge_denied/);
  const denied = await secondFactor(url, c2.challenge_id);
  assert.deepEqual([denied.status, denied.body.code], [403, 'challenge_denied']);

  // 3. deny denies.
  const c3 = await challenge();
  const deny = await svcDevice(['deny', c3.challenge_id, '--state', state]);
  assert.equal(deny.code, 0, deny.stderr);
  assert.equal(JSON.parse(deny.lines[0]!).status, 'denied');
  assert.equal((await secondFactor(url, c3.challenge_id)).status, 403);

  // 4. "This wasn't me" denies too.
  const c4 = await challenge();
  const report = await svcDevice(['report', c4.challenge_id, '--state', state]);
  assert.equal(report.code, 0, report.stderr);
  assert.equal((await secondFactor(url, c4.challenge_id)).body.code, 'challenge_denied');

  // 5. The offline code releases a sign-in; a wrong code is refused first.
  const c5 = await challenge();
  const code = await svcDevice(['code', '--state', state]);
  assert.equal(code.code, 0);
  assert.match(code.lines[0]!, /^\d{6}$/);
  const bad = String((Number(code.lines[0]) + 1) % 1_000_000).padStart(6, '0');
  const refused = await secondFactor(url, c5.challenge_id, bad);
  assert.deepEqual([refused.status, refused.body.code], [401, 'code_invalid']);
  const byCode = await secondFactor(url, c5.challenge_id, code.lines[0]!);
  assert.equal(byCode.status, 200, JSON.stringify(byCode.body));

  // 6. Push fatigue: a sixth challenge within ten minutes is throttled.
  const flood = await passwordLogin(url, ADMIN.email, ADMIN.password);
  assert.deepEqual([flood.status, flood.body.code], [429, 'challenge_throttled']);

  // 7. refresh rotates; the replayed (old) refresh token revokes the device.
  const before = JSON.parse(readFileSync(state, 'utf8')) as { refresh_token: string };
  const rotated = await svcDevice(['refresh', '--state', state]);
  assert.equal(rotated.code, 0, rotated.stderr);
  const after = JSON.parse(readFileSync(state, 'utf8')) as { refresh_token: string };
  assert.notEqual(after.refresh_token, before.refresh_token);
  assert.equal(statSync(state).mode & 0o777, 0o600);
  const replay = await fetch(`${url}/dirauth/pair/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: before.refresh_token }) });
  assert.equal(replay.status, 401);
  assert.equal((await replay.json() as { code: string }).code, 'refresh_token_reused');
  const devices = await fetch(`${url}/v1/account/devices`, { headers: { authorization: `Bearer ${released.body.access_token as string}` } });
  const list = await devices.json() as { items: { id: string; state: string }[] };
  assert.equal(list.items.find((d) => d.id === pairedLine.device_id)?.state, 'revoked');

  // The revoked device can no longer refresh, list or approve.
  const after2 = await svcDevice(['refresh', '--state', state]);
  assert.equal(after2.code, 1);
  assert.match(after2.stderr, /device_revoked|refresh_token_reused|refresh_token_invalid/);
  const list2 = await svcDevice(['pending', '--state', state]);
  assert.equal(list2.code, 1);
  assert.match(list2.stderr, /^svc-device: device_revoked: /);
  const approve2 = await svcDevice(['approve', c1.challenge_id, '--number', String(c1.number_match), '--state', state]);
  assert.equal(approve2.code, 1);
  assert.match(approve2.stderr, /device_revoked/);
});

/** This machine's first non-internal IPv4 address, or null. */
function lanIPv4(): string | null {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return null;
}

const LAN = lanIPv4();

test('svc-device over HTTPS on the LAN pins the certificate fingerprint of the enrollment URL', { skip: LAN ? false : 'no non-internal IPv4 address' }, async (t) => {
  const stack = await startStack({ SVC_BIND_HOST: LAN! });
  t.after(() => stack.stop());
  assert.match(stack.url, /^https:\/\//);
  // The test's own calls accept the self-signed certificate; the device must pin it.
  const insecure = new Agent({ connect: { rejectUnauthorized: false } });
  t.after(() => insecure.close());
  const call = async (path: string, init: { method: string; token?: string; json?: unknown }): Promise<{ status: number; body: Record<string, unknown> }> => {
    const headers: Record<string, string> = init.json === undefined ? {} : { 'content-type': 'application/json' };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    const r = await undiciFetch(`${stack.url}${path}`, { method: init.method, headers, body: init.json === undefined ? undefined : JSON.stringify(init.json), dispatcher: insecure });
    return { status: r.status, body: await r.json() as Record<string, unknown> };
  };
  const signIn = await call('/v1/auth/login', { method: 'POST', json: { username: ADMIN.email, password: ADMIN.password } });
  assert.equal(signIn.status, 200);
  const pairing = await call('/v1/account/devices/pairing', { method: 'POST', token: signIn.body.access_token as string });
  assert.equal(pairing.status, 201, JSON.stringify(pairing.body));
  const enrollmentUrl = pairing.body.enrollment_url as string;
  assert.ok(enrollmentUrl.startsWith(`${stack.url}/m/#pair?`), enrollmentUrl);
  const fp = new URLSearchParams(enrollmentUrl.split('#pair?')[1]).get('fp')!;
  assert.match(fp, /^[0-9a-f]{64}$/);

  const dir = mkdtempSync(join(tmpdir(), 'svc-device-tls-'));
  const forged = enrollmentUrl.replace(`fp=${fp}`, `fp=${'0'.repeat(64)}`);
  const refused = await svcDevice(['pair', forged, '--state', join(dir, 'forged.json')]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^svc-device: certificate_mismatch: /);

  const state = join(dir, 'device.json');
  const paired = await svcDevice(['pair', enrollmentUrl, '--state', state, '--name', 'LAN device']);
  assert.equal(paired.code, 0, paired.stderr);
  assert.equal((JSON.parse(readFileSync(state, 'utf8')) as { fingerprint: string }).fingerprint, fp);

  const c = await call('/v1/auth/login', { method: 'POST', json: { username: ADMIN.email, password: ADMIN.password } });
  assert.equal(c.status, 202);
  const approve = await svcDevice(['approve', c.body.challenge_id as string, '--number', String(c.body.number_match), '--state', state]);
  assert.equal(approve.code, 0, approve.stderr);
  const released = await call('/v1/auth/login/2fa', { method: 'POST', json: { challenge_id: c.body.challenge_id } });
  assert.equal(released.status, 200);
});
