/**
 * Regression (issue 11 item 2, "The auth service trusts the gateway, not the caller"): a direct
 * call to the auth service's port with a rotating `X-Forwarded-For` sprayed passwords past the
 * per-IP throttle, and a direct password login there issued tokens.
 *
 * Real auth service and real gateway on ephemeral ports. Now:
 * - a password login on the auth port without the gateway's signed hop stamp is refused with 403
 *   `gateway_required` before any password check, even with the right password, whatever
 *   `X-Forwarded-For` / `X-Real-IP` / `Forwarded` say, and with a forged or foreign-key stamp;
 * - forwarding headers never choose the throttle's source: through the gateway (which does not
 *   trust proxies by default) a spray with a rotating `X-Forwarded-For` is throttled on the real
 *   peer, and a hop-stamped call is counted on the stamp's address, not on `X-Forwarded-For`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start as startAuth } from '../../services/auth/src/index.js';
import { start as startGateway } from '../../services/gateway/src/index.js';
import { ClientHopSigner } from '../../services/shared/identity/client-hop.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, authConfig, gatewayForAuth, gatewayHop } from '../helpers/auth.js';

/** `loginMaxFailuresPerIp` of the test config: the per-source cap across accounts. */
const PER_SOURCE = 6;

describe('auth forwarded-for spray', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-auth-xff-'));
  const authCfg = authConfig(dir, { loginMaxFailuresPerIp: PER_SOURCE });
  let auth: RunningService;
  let gw: RunningService;
  let authBase: string;
  let gwBase: string;

  before(async () => {
    auth = await startAuth(authCfg);
    authBase = `http://127.0.0.1:${auth.port}`;
    gw = await startGateway(gatewayForAuth(authCfg, authBase));
    gwBase = `http://127.0.0.1:${gw.port}`;
  });
  after(async () => {
    await gw?.close();
    await auth?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  const login = async (base: string, username: string, password: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any; retryAfter: string | null }> => {
    const res = await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ username, password }) });
    return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
  };
  const spoof = (i: number): Record<string, string> => ({
    'x-forwarded-for': `198.18.${i >> 8}.${i & 255}`, 'x-real-ip': `198.19.0.${i & 255}`, forwarded: `for=198.20.0.${i & 255}`,
  });

  it('refuses a direct password login on the auth port, even with the right password', async () => {
    for (let i = 0; i < 20; i++) {
      const r = await login(authBase, ADMIN_EMAIL, i % 2 ? ADMIN_PASSWORD : `guess-${i}`, spoof(i));
      assert.equal(r.status, 403, `attempt ${i}`);
      assert.equal(r.body.code, 'gateway_required');
      assert.equal(r.body.access_token, undefined, 'no token issued');
    }
    // A forged stamp, one signed with another key, or a stamp replayed as a forwarding header do not pass.
    const other = new ClientHopSigner(['f'.repeat(40)]).stamp('203.0.113.1')!;
    const replayedAsXff = gatewayHop(authCfg.principalKeys, '203.0.113.1')['x-svc-client']!;
    const attempts: Array<Record<string, string>> = [{ 'x-svc-client': 'forged.stamp' }, { 'x-svc-client': other }, { 'x-forwarded-for': replayedAsXff }];
    for (const headers of attempts) {
      const r = await login(authBase, ADMIN_EMAIL, ADMIN_PASSWORD, headers);
      assert.equal(r.status, 403);
      assert.equal(r.body.code, 'gateway_required');
    }
  });

  it('throttles a spray through the gateway on the real peer, whatever X-Forwarded-For says', async () => {
    for (let i = 0; i < PER_SOURCE; i++) {
      const r = await login(gwBase, `victim${i}@example.test`, 'Winter2024!', spoof(i));
      assert.equal(r.status, 401, `guess ${i}`);
      assert.equal(r.body.code, 'invalid_credentials');
    }
    for (let i = PER_SOURCE; i < PER_SOURCE + 5; i++) {
      const r = await login(gwBase, `victim${i}@example.test`, 'Winter2024!', spoof(i));
      assert.equal(r.status, 429, `guess ${i} with a fresh X-Forwarded-For`);
      assert.equal(r.body.code, 'login_throttled');
      assert.ok(Number(r.retryAfter) >= 1);
    }
  });

  it('counts a gateway-stamped login on the stamp\'s address, not on X-Forwarded-For', async () => {
    const hop = gatewayHop(authCfg.principalKeys, '203.0.113.50');
    for (let i = 0; i < PER_SOURCE; i++) {
      assert.equal((await login(authBase, `spray${i}@example.test`, 'pw', { ...hop, ...spoof(100 + i) })).status, 401);
    }
    const blocked = await login(authBase, ADMIN_EMAIL, ADMIN_PASSWORD, { ...hop, ...spoof(200) });
    assert.equal(blocked.status, 429);
    assert.equal(blocked.body.code, 'login_throttled');
    // Another client address (as the gateway names it) is unaffected.
    const ok = await login(authBase, ADMIN_EMAIL, ADMIN_PASSWORD, { ...gatewayHop(authCfg.principalKeys, '203.0.113.51'), ...spoof(201) });
    assert.equal(ok.status, 200);
    assert.equal(typeof ok.body.access_token, 'string');
  });
});
