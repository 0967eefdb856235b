/**
 * Regression (issue 11 item 2, second half): "five wrong passwords from anywhere locked the admin
 * out for 15 minutes". The real auth service (port 0, temp data dir, a settable clock), called as
 * the gateway calls it (its signed `X-Svc-Client` hop stamp names the client address), with the
 * production defaults: 5 free failures, a 900 s window.
 *
 * Now the throttle counts per account AND source (OWASP Authentication Cheat Sheet): an attacker's
 * wrong passwords slow down only the attacker, with delays that double from 1 s and stop growing at
 * the window, while the admin logs in from their own address at once; the counters survive a
 * restart of the service.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from '../../services/auth/src/index.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, authConfig, fakeClock, gatewayHop } from '../helpers/auth.js';

const ATTACKER = '203.0.113.66';
const ADMIN_HOME = '192.0.2.10';

describe('auth lockout by third party', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-auth-lockout-'));
  // Production defaults (main/config): 5 per account, 20 per source, 900 s window.
  const cfg = authConfig(dir, { loginMaxFailuresPerAccount: 5, loginMaxFailuresPerIp: 20, loginThrottleWindowSeconds: 900 });
  const clock = fakeClock(Date.now());
  let svc: RunningService;
  let base: string;

  before(async () => {
    svc = await start(cfg, { clock: clock.now });
    base = `http://127.0.0.1:${svc.port}`;
  });
  after(async () => {
    await svc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  const login = async (password: string, ip: string): Promise<{ status: number; body: any; retryAfter: number | null }> => {
    const res = await fetch(`${base}/v1/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...gatewayHop(cfg.principalKeys, ip) },
      body: JSON.stringify({ username: ADMIN_EMAIL, password }),
    });
    const ra = res.headers.get('retry-after');
    return { status: res.status, body: await res.json(), retryAfter: ra === null ? null : Number(ra) };
  };

  it('does not lock the admin out after five wrong passwords from another source', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await login(`wrong-${i}`, ATTACKER)).status, 401);
    const attacker = await login(ADMIN_PASSWORD, ATTACKER);
    assert.equal(attacker.status, 429, 'the attacker\'s source waits');
    assert.equal(attacker.body.code, 'login_throttled');
    const admin = await login(ADMIN_PASSWORD, ADMIN_HOME);
    assert.equal(admin.status, 200, 'the admin logs in from their own source at once');
    assert.equal(typeof admin.body.access_token, 'string');
  });

  it('makes the attacker wait longer after each further failure, up to the window', async () => {
    const waits: number[] = [];
    for (let i = 0; i < 14; i++) {
      const blocked = await login('guess', ATTACKER);
      assert.equal(blocked.status, 429);
      waits.push(blocked.retryAfter!);
      clock.advance(blocked.retryAfter! * 1000);
      assert.equal((await login(`guess-${i}`, ATTACKER)).status, 401, 'one guess after each wait');
    }
    assert.deepEqual(waits.slice(0, 10), [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]);
    assert.deepEqual(waits.slice(10), [900, 900, 900, 900], 'capped at the window');
    assert.equal((await login(ADMIN_PASSWORD, ADMIN_HOME)).status, 200, 'the admin is still unaffected');
  });

  it('keeps the attacker\'s delay across a restart of the auth service', async () => {
    await svc.close();
    svc = await start(cfg, { clock: clock.now });
    base = `http://127.0.0.1:${svc.port}`;
    const blocked = await login(ADMIN_PASSWORD, ATTACKER);
    assert.equal(blocked.status, 429);
    assert.equal(blocked.retryAfter, 900);
    assert.equal((await login(ADMIN_PASSWORD, ADMIN_HOME)).status, 200);
  });
});
