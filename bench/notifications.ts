/**
 * Notification figures (issue 13 "Figures"), side by side in one run, against the real agent
 * runtime in a worker thread (as under the supervisor) over real HTTP (undici, keep-alive), each
 * call with a fresh-enough service or user stamp:
 *  (a) fan-out: 1,000 producer calls `POST /v1/internal/notifications` as `service:knowledge`, 800
 *      unique idempotency keys and 200 repeats of keys already sent or still in flight, 10 at once,
 *      across 20 users: throughput and p50, and exactly-once delivery checked by counting (800 answered
 *      201, 200 answered 200 with the original's id, 800 rows in the users' inboxes);
 *  (b) `GET /v1/notifications/unread-count` p50 for a user with 10,000 notifications (target <= 2 ms,
 *      over HTTP), beside the HTTP floor of the same server (`GET /healthz`), the list route
 *      (`GET /v1/notifications?limit=50`), and on the same database file from the bench thread:
 *      the counter row the route reads, an indexed `COUNT(*)` over (tenant, user, read_at), and a
 *      naive `COUNT(*)` without an index (`NOT INDEXED`, a full scan).
 *
 * Alone: `node dist/bench/notifications.js` (after `npm run build`); in `npm run bench` with the others.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { runtimeSettings } from '../test/helpers/runtime-config.js';
import { commonConfig, removeDir } from '../test/helpers/service-configs.js';
import { stampedHeaders, testPrincipal } from '../test/helpers/principals.js';
import { pct, spawnService, runIfEntry } from './support/measure.js';
import type { Figure } from './audit.js';

const RUNTIME = pathToFileURL(fileURLToPath(new URL('../services/agent-runtime/src/index.js', import.meta.url))).href;
const TENANT = 'acme';
const UNIQUE = 800;
const REPEATS = 200;
const CONCURRENCY = 10;
const USERS = 20;
const INBOX = 10_000;
const SAMPLES = 2000;

/** Headers of a fresh stamp (a stamp lives five minutes; the bench may run longer). */
const as = (id: string, roles: string[]): Record<string, string> => stampedHeaders(testPrincipal(id, roles, TENANT));

async function call(pool: Pool, method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any; ms: number }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const t0 = performance.now();
  const r = await pool.request({ method, path, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.body.text();
  const ms = performance.now() - t0;
  return { status: r.statusCode, body: text ? JSON.parse(text) : null, ms };
}

/** Run `jobs` with at most `n` at once. */
async function inParallel<T>(jobs: Array<() => Promise<T>>, n: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < jobs.length) { const i = next++; out[i] = await jobs[i]!(); }
  }));
  return out;
}

/** p50 of `n` sequential runs of `fn` (ms) after `warm` unmeasured runs. */
async function p50Of(fn: () => Promise<number> | number, n = SAMPLES, warm = 200): Promise<number> {
  for (let i = 0; i < warm; i++) await fn();
  const xs: number[] = [];
  for (let i = 0; i < n; i++) xs.push(await fn());
  return pct(xs, 50);
}

/** Run the notification benchmarks and print the figures. @returns the figures. */
export async function main(): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'notif-bench-'));
  const cfg = { ...commonConfig('agent-runtime', dir, TENANT), ...runtimeSettings(), logLevel: 'error' };
  const rt = await spawnService(RUNTIME, cfg);
  const pool = new Pool(`http://127.0.0.1:${rt.port}`, { connections: CONCURRENCY * 2 });
  const figures: Figure[] = [];
  const out = (f: Figure): void => { figures.push(f); process.stdout.write(`${f.name.padEnd(78)} ${f.value.toFixed(f.value < 10 ? 3 : 0).padStart(10)} ${f.unit}${f.target ? `  (target ${f.target}: ${f.pass ? 'PASS' : 'FAIL'})` : ''}\n`); };
  try {
    // (a) Fan-out with repeats: every 5th call repeats a key sent shortly before (possibly still in flight).
    const service = as('service:knowledge', ['service-account']);
    const plan: Array<{ key: string; user: string; repeat: boolean }> = [];
    let unique = 0;
    for (let i = 0; i < UNIQUE + REPEATS; i++) {
      if (i % 5 === 4 && unique > 0) {
        const of = plan.filter((p) => !p.repeat)[Math.max(0, unique - 1 - (i % 7))]!;
        plan.push({ key: of.key, user: of.user, repeat: true });
      } else {
        plan.push({ key: `document:${unique}:indexed`, user: `user-${unique % USERS}`, repeat: false });
        unique++;
      }
    }
    const t0 = performance.now();
    const answers = await inParallel(plan.map((p) => () => call(pool, 'POST', '/v1/internal/notifications', service, {
      tenant_id: TENANT, user_id: p.user, kind: 'document_indexed', title: `Document ${p.key}`, payload: { document_id: p.key }, idempotency_key: p.key,
    })), CONCURRENCY);
    const seconds = (performance.now() - t0) / 1000;
    const created = answers.filter((a) => a.status === 201).length;
    const repeated = answers.filter((a) => a.status === 200).length;
    const idByKey = new Map<string, string>();
    let sameId = true;
    answers.forEach((a, i) => {
      const k = plan[i]!.key;
      const prev = idByKey.get(k);
      if (prev === undefined) idByKey.set(k, a.body.id as string); else if (prev !== a.body.id) sameId = false;
    });
    let stored = 0;
    for (let u = 0; u < USERS; u++) {
      let cursor: string | undefined;
      do {
        const page = await call(pool, 'GET', `/v1/notifications?limit=100${cursor ? `&cursor=${cursor}` : ''}`, as(`user-${u}`, ['user']));
        stored += (page.body.items as unknown[]).length;
        cursor = page.body.next_cursor as string | undefined;
      } while (cursor);
    }
    const exactlyOnce = created === UNIQUE && repeated === REPEATS && stored === UNIQUE && sameId && idByKey.size === UNIQUE;
    console.log(`fan-out: ${created} answered 201, ${repeated} answered 200, ${stored} stored for ${USERS} users, repeats answered the original's id: ${sameId}`);
    out({ name: `fan-out: ${UNIQUE + REPEATS} producer calls (${REPEATS} repeated keys), ${CONCURRENCY} at once: throughput`, value: (UNIQUE + REPEATS) / seconds, unit: 'calls/s' });
    out({ name: 'fan-out: producer call p50 (HTTP)', value: pct(answers.map((a) => a.ms), 50), unit: 'ms' });
    out({ name: 'fan-out: producer call p95 (HTTP)', value: pct(answers.map((a) => a.ms), 95), unit: 'ms' });
    out({ name: 'fan-out: exactly-once delivery (counted)', value: exactlyOnce ? 1 : 0, unit: '', target: '1', pass: exactlyOnce });

    // (b) One user with 10,000 unread notifications (posted through the route).
    const who = 'inbox-user';
    const seed = await inParallel(Array.from({ length: INBOX }, (_, i) => () => call(pool, 'POST', '/v1/internal/notifications', service, {
      tenant_id: TENANT, user_id: who, kind: 'test', title: `n${i}`, payload: { i },
    })), CONCURRENCY);
    if (seed.some((s) => s.status !== 201)) throw new Error('seeding the inbox failed');
    const user = as(who, ['user']);
    const count = await call(pool, 'GET', '/v1/notifications/unread-count', user);
    if (count.body.count !== INBOX) throw new Error(`unread count ${JSON.stringify(count.body)}, expected ${INBOX}`);
    const unreadP50 = await p50Of(async () => (await call(pool, 'GET', '/v1/notifications/unread-count', user)).ms);
    const healthP50 = await p50Of(async () => (await call(pool, 'GET', '/healthz', {})).ms);
    const listP50 = await p50Of(async () => (await call(pool, 'GET', '/v1/notifications?limit=50', user)).ms, 500, 50);
    const db = new Database(join(dir, 'db', 'agent-runtime.sqlite'), { readonly: true });
    const timed = (sql: string) => { const st = db.prepare(sql); return (): number => { const t = performance.now(); st.get(TENANT, who); return performance.now() - t; }; };
    const counterP50 = await p50Of(timed('SELECT unread FROM notification_counters WHERE tenant_id = ? AND user_id = ?'));
    const indexedP50 = await p50Of(timed('SELECT COUNT(*) FROM notifications WHERE tenant_id = ? AND user_id = ? AND read_at IS NULL'), 500, 20);
    const naiveP50 = await p50Of(timed('SELECT COUNT(*) FROM notifications NOT INDEXED WHERE tenant_id = ? AND user_id = ? AND read_at IS NULL'), 200, 10);
    db.close();
    out({ name: `unread-count p50, ${INBOX} unread for one user (HTTP, maintained counter)`, value: unreadP50, unit: 'ms', target: '<= 2 ms', pass: unreadP50 <= 2 });
    out({ name: 'HTTP floor: GET /healthz p50 (same server)', value: healthP50, unit: 'ms' });
    out({ name: 'list route GET /v1/notifications?limit=50 p50 (HTTP)', value: listP50, unit: 'ms' });
    out({ name: 'SQL: counter row read p50 (what the route runs)', value: counterP50, unit: 'ms' });
    out({ name: 'SQL: COUNT(*) over the (tenant, user, read_at) index p50', value: indexedP50, unit: 'ms' });
    out({ name: `SQL: naive COUNT(*) without an index (full scan of ${INBOX + UNIQUE} rows) p50`, value: naiveP50, unit: 'ms' });
    out({ name: 'naive COUNT(*) / counter read', value: naiveP50 / counterP50, unit: 'x' });
  } finally {
    await pool.close();
    await rt.stop();
    removeDir(dir);
  }
  return figures;
}

await runIfEntry(import.meta.url, main);
