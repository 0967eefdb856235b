/**
 * Regression (issue 14, found while building the device channel): the phone keeps an event stream
 * open through the gateway (`GET /dirauth/pair/challenges`, `Accept: text/event-stream`), which ends
 * only when its device proof expires; closing the gateway waited for it (134 s measured with a
 * 60-second proof), past the supervisor's shutdown timeout. The gateway now cuts the streams of the
 * device channel when it closes (the phone reconnects), and closes at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { start as startAuth } from '../../services/auth/src/index.js';
import { start as startGateway } from '../../services/gateway/src/index.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, authConfig, gatewayForAuth } from '../helpers/auth.js';
import { pairPhone } from '../helpers/phone-device.js';

test('closing the gateway cuts an open device-channel stream instead of waiting for it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-gw-close-sse-'));
  const authCfg = authConfig(dir);
  const auth = await startAuth(authCfg);
  const gwCfg = { ...gatewayForAuth(authCfg, `http://127.0.0.1:${auth.port}`), maxRequestBodyBytes: 1024 * 1024 };
  const pairingGw = await startGateway(gwCfg);
  t.after(async () => { await pairingGw.close(); await auth.close(); rmSync(dir, { recursive: true, force: true }); });
  const base = `http://127.0.0.1:${pairingGw.port}`;
  const post = async (path: string, body: unknown, token?: string) => (await fetch(base + path, {
    method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body),
  })).json() as Promise<{ access_token: string; enrollment_url: string }>;
  const admin = await post('/v1/auth/login', { username: ADMIN_EMAIL, password: ADMIN_PASSWORD });
  const pairing = await post('/v1/account/devices/pairing', {}, admin.access_token);
  const phone = await pairPhone(base, pairing.enrollment_url);

  // A second gateway, on its own data directory, that served no authenticated turn (nothing in its
  // outbox to drain to audit on close).
  const own = mkdtempSync(join(tmpdir(), 'svc-gw-close-sse-own-'));
  const gw = await startGateway({ ...gwCfg, dataDir: own, dbDir: join(own, 'db'), logDir: join(own, 'logs'), objectsDir: join(own, 'objects') });
  t.after(() => rmSync(own, { recursive: true, force: true }));
  const res = await request(`http://127.0.0.1:${gw.port}/dirauth/pair/challenges`, {
    headers: { accept: 'text/event-stream', 'x-device-proof': await phone.proof('GET', '/dirauth/pair/challenges') },
  });
  assert.equal(res.statusCode, 200);
  let ended = false;
  res.body.on('data', () => undefined);
  res.body.on('error', () => { ended = true; });
  res.body.on('close', () => { ended = true; });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(ended, false, 'the stream is open');
  const t0 = Date.now();
  await gw.close();
  const ms = Date.now() - t0;
  assert.ok(ms < 3000, `the gateway closed in ${ms} ms`);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(ended, true, 'the phone sees its stream end and reconnects');
});
