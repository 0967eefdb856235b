/**
 * Phone second-factor figures (issue 14 "Figures"), side by side in one run, against the real auth
 * service and the real gateway, each in a worker thread (as under the supervisor), over loopback
 * HTTP with keep-alive, the password hash at the production cost (scrypt N = 32768), phones written
 * against the protocol with jose (test/helpers/phone-device.ts):
 *  (a) time from the phone's approval to tokens in the browser, p50 and p95: the browser polls
 *      `POST /v1/auth/login/2fa` every 100 ms (the phone answers at a random phase of the poll), from
 *      the moment the phone sends its answer to the browser's 200; beside it the server-side time
 *      (the answer's round trip, then one 2fa call that releases the tokens), and the release call
 *      alone (auth's verify plus the parking store's take);
 *  (b) login throughput with the second factor off (users without a device: 200 tokens) and on
 *      (users with a paired phone: password, `required`, challenge, parking, 202), the same number of
 *      logins at the same concurrency in alternating rounds, and their ratio (password verification
 *      dominates both).
 *
 * Alone: `node dist/bench/two-factor.js` (after `npm run build`); in `npm run bench` with the others.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { authConfig, gatewayForAuth, ADMIN_EMAIL, ADMIN_PASSWORD } from '../test/helpers/auth.js';
import { pairPhone, type PhoneDevice } from '../test/helpers/phone-device.js';
import { removeDir } from '../test/helpers/service-configs.js';
import { pct, spawnService, runIfEntry } from './support/measure.js';
import type { Figure } from './audit.js';

const AUTH = pathToFileURL(fileURLToPath(new URL('../services/auth/src/index.js', import.meta.url))).href;
const GATEWAY = pathToFileURL(fileURLToPath(new URL('../services/gateway/src/index.js', import.meta.url))).href;
/** The production password hash cost (main/config default `SVC_SCRYPT_N`). */
const SCRYPT_N = 32768;
/** Approval samples; each is one login with its own challenge. */
const APPROVALS = 30;
/** Logins per throughput run, and how many run at once. */
const LOGINS = 60;
const CONCURRENCY = 4;
/** The throughput runs alternate off and on in this many rounds. */
const ROUNDS = 3;
/** How often the browser polls the 2fa route while it waits, ms. */
const POLL_MS = 100;
/**
 * Users with a phone: auth throttles more than 5 challenges per user in 10 minutes (push fatigue),
 * so the challenged logins are spread over enough users to stay below it.
 */
const PHONE_USERS = Math.ceil((APPROVALS * 2 + LOGINS) / 4);
const PLAIN_USERS = CONCURRENCY;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the bench reads arbitrary JSON bodies
interface Res { status: number; body: any; ms: number }

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Run `jobs` with at most `n` at once. */
async function inParallel<T>(jobs: Array<() => Promise<T>>, n: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < jobs.length) { const i = next++; out[i] = await jobs[i]!(); }
  }));
  return out;
}

/** Run the second-factor benchmarks and print the figures. @returns the figures. */
export async function main(): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'two-factor-bench-'));
  const authCfg = authConfig(dir, { scryptN: SCRYPT_N, logLevel: 'warn', loginMaxFailuresPerIp: 1000 });
  const auth = await spawnService(AUTH, authCfg);
  const gwCfg = {
    ...gatewayForAuth(authCfg, `http://127.0.0.1:${auth.port}`),
    rateLimitIpPerMinute: 10_000_000, rateLimitTenantPerMinute: 10_000_000, maxRequestBodyBytes: 1024 * 1024, logLevel: 'warn',
  };
  const gw = await spawnService(GATEWAY, gwCfg);
  const base = `http://127.0.0.1:${gw.port}`;
  const pool = new Pool(base, { connections: CONCURRENCY * 2 });
  const call = async (method: string, path: string, body?: unknown, token?: string): Promise<Res> => {
    const headers: Record<string, string> = { 'user-agent': 'two-factor-bench' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token) headers.authorization = `Bearer ${token}`;
    const t0 = performance.now();
    const r = await pool.request({ method: method as 'POST', path, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.body.text();
    return { status: r.statusCode, body: text ? JSON.parse(text) : null, ms: performance.now() - t0 };
  };
  const login = (email: string, password: string): Promise<Res> => call('POST', '/v1/auth/login', { username: email, password });
  const figures: Figure[] = [];
  const out = (f: Figure): void => { figures.push(f); process.stdout.write(`${f.name.padEnd(86)} ${f.value.toFixed(f.value < 10 ? 3 : 1).padStart(10)} ${f.unit}${f.target ? `  (target ${f.target}: ${f.pass ? 'PASS' : 'FAIL'})` : ''}\n`); };
  try {
    const admin = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    if (admin.status !== 200) throw new Error(`admin login ${admin.status}`);
    const token = admin.body.access_token as string;
    const makeUser = async (email: string): Promise<string> => {
      const password = `${email}-pw`;
      const r = await call('POST', '/v1/admin/users', { email, display_name: email, password, roles: ['user'] }, token);
      if (r.status !== 201) throw new Error(`create ${email}: ${r.status} ${JSON.stringify(r.body)}`);
      return password;
    };
    const plain = await inParallel(Array.from({ length: PLAIN_USERS }, (_, i) => async () => {
      const email = `plain${i}@bench.test`;
      return { email, password: await makeUser(email) };
    }), CONCURRENCY);
    const phones = await inParallel(Array.from({ length: PHONE_USERS }, (_, i) => async () => {
      const email = `phone${i}@bench.test`;
      const password = await makeUser(email);
      const first = await login(email, password);
      const pairing = await call('POST', '/v1/account/devices/pairing', {}, first.body.access_token as string);
      if (pairing.status !== 201) throw new Error(`pairing ${pairing.status}`);
      return { email, password, phone: await pairPhone(base, pairing.body.enrollment_url as string) as PhoneDevice };
    }), CONCURRENCY);
    console.log(`two-factor: ${PLAIN_USERS} users without a device, ${PHONE_USERS} with a paired phone (scrypt N = ${SCRYPT_N})`);
    let next = 0;
    const phoneUser = () => phones[next++ % PHONE_USERS]!;

    // (a) Approval -> tokens.
    const polled: number[] = [];
    for (let i = 0; i < APPROVALS; i++) {
      const u = phoneUser();
      const r = await login(u.email, u.password);
      if (r.status !== 202) throw new Error(`expected a challenge, got ${r.status} ${JSON.stringify(r.body)}`);
      const id = r.body.challenge_id as string;
      const browser = (async (): Promise<number> => {
        for (;;) {
          const p = await call('POST', '/v1/auth/login/2fa', { challenge_id: id });
          if (p.status === 200) return performance.now();
          if (p.status !== 202) throw new Error(`2fa ${p.status} ${JSON.stringify(p.body)}`);
          await sleep(POLL_MS);
        }
      })();
      await sleep(Math.random() * POLL_MS);
      const approvedAt = performance.now();
      const a = await u.phone.answer(id, 'approve', r.body.number_match as number);
      if (a.body?.status !== 'approved') throw new Error(`approve: ${a.status} ${JSON.stringify(a.body)}`);
      polled.push(await browser - approvedAt);
    }
    const serverSide: number[] = [];
    const release: number[] = [];
    for (let i = 0; i < APPROVALS; i++) {
      const u = phoneUser();
      const r = await login(u.email, u.password);
      if (r.status !== 202) throw new Error(`expected a challenge, got ${r.status}`);
      const t0 = performance.now();
      const a = await u.phone.answer(r.body.challenge_id as string, 'approve', r.body.number_match as number);
      if (a.body?.status !== 'approved') throw new Error(`approve: ${a.status}`);
      const done = await call('POST', '/v1/auth/login/2fa', { challenge_id: r.body.challenge_id });
      if (done.status !== 200) throw new Error(`release ${done.status}`);
      serverSide.push(performance.now() - t0);
      release.push(done.ms);
    }
    const p50 = pct(polled, 50);
    out({ name: `approval -> tokens in the browser p50 (browser polls every ${POLL_MS} ms, loopback)`, value: p50, unit: 'ms', target: '< 1000 ms', pass: p50 < 1000 });
    out({ name: 'approval -> tokens in the browser p95 (same)', value: pct(polled, 95), unit: 'ms' });
    out({ name: 'approval -> tokens server side p50 (phone answer round trip + one releasing 2fa call)', value: pct(serverSide, 50), unit: 'ms' });
    out({ name: 'releasing 2fa call alone p50 (auth verify + parking take)', value: pct(release, 50), unit: 'ms' });

    // (b) Login throughput, 2FA off vs on, same count and concurrency, in alternating rounds so a
    // change in the machine's load during the run falls on both alike.
    let k = 0;
    let offSeconds = 0;
    let onSeconds = 0;
    const off: Res[] = [];
    const on: Res[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const n = LOGINS / ROUNDS;
      const t0 = performance.now();
      off.push(...await inParallel(Array.from({ length: n }, () => () => { const u = plain[k++ % PLAIN_USERS]!; return login(u.email, u.password); }), CONCURRENCY));
      offSeconds += (performance.now() - t0) / 1000;
      const t1 = performance.now();
      on.push(...await inParallel(Array.from({ length: n }, () => () => { const u = phoneUser(); return login(u.email, u.password); }), CONCURRENCY));
      onSeconds += (performance.now() - t1) / 1000;
    }
    if (off.some((r) => r.status !== 200)) throw new Error(`2FA-off logins: ${[...new Set(off.map((r) => r.status))].join(',')}`);
    if (on.some((r) => r.status !== 202)) throw new Error(`2FA-on logins: ${[...new Set(on.map((r) => r.status))].join(',')}`);
    const offRate = LOGINS / offSeconds;
    const onRate = LOGINS / onSeconds;
    out({ name: `login throughput, 2FA off (200 tokens), ${LOGINS} logins, ${CONCURRENCY} at once`, value: offRate, unit: 'logins/s' });
    out({ name: `login throughput, 2FA on (202 challenge parked), ${LOGINS} logins, ${CONCURRENCY} at once`, value: onRate, unit: 'logins/s' });
    out({ name: 'login throughput ratio, 2FA on / off', value: onRate / offRate, unit: 'x' });
    out({ name: 'login p50, 2FA off', value: pct(off.map((r) => r.ms), 50), unit: 'ms' });
    out({ name: 'login p50, 2FA on', value: pct(on.map((r) => r.ms), 50), unit: 'ms' });
  } finally {
    await pool.close();
    await gw.stop();
    await auth.stop();
    removeDir(dir);
  }
  return figures;
}

await runIfEntry(import.meta.url, main);
