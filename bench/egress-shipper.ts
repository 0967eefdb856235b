/**
 * Egress shipper figures (issue 19 "Figures"; item 6): Squid access-log lines (the `svcegress`
 * logformat) to signed, chained audit rows, measured on a temp audit store with the real shipper
 * (services/audit/src/domain/egress-shipper.ts over store/egress-log-file.ts and the cursor):
 *  1. throughput: 20,000 lines already in the log, shipped in passes: lines -> rows per second, beside
 *     plain signed appends of the same rows through the same writer (the baseline: what the chain costs
 *     without reading and parsing the log);
 *  2. lag at 100 requests/s: a writer appends 100 lines per second for 5 s while the shipper polls
 *     every 250 ms as the audit service does; p50 / p95 / max of (row visible - line written);
 *  3. correctness while measuring: the log is rotated (renamed, a new file opened) mid-run and the
 *     shipper is restarted (a new instance over the same store); every line becomes exactly one row.
 * Run: `node dist/bench/egress-shipper.js` (or `npm run bench`).
 */
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChainWriter } from '../services/audit/src/domain/chain-writer.js';
import { EgressShipper } from '../services/audit/src/domain/egress-shipper.js';
import { egressRowOf } from '../services/audit/src/domain/egress-log.js';
import { keyRingFromConfig, type KeyProvider } from '../services/audit/src/domain/keys.js';
import { AuditStore } from '../services/audit/src/store/audit-store.js';
import { SqliteEgressCursor } from '../services/audit/src/store/egress-cursor.js';
import { accessLogFile } from '../services/audit/src/store/egress-log-file.js';
import { pct, runIfEntry } from './support/measure.js';
import type { Figure } from './audit.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const MIGRATIONS = join(ROOT, 'migrations');
const TENANT = 'bench-tenant';
const keys: KeyProvider = ((ring) => () => ring)(keyRingFromConfig({ signingKey: 'bench-egress-key-0123456789abcdef0123456789', keyVersion: 'v1', previousSigningKey: null, previousKeyVersion: null }));

/** One `svcegress` line (13 tab-separated fields) for request `i`; every 7th is denied. */
function line(i: number): string {
  const deny = i % 7 === 0;
  const ts = (Date.now() / 1000).toFixed(3);
  return [ts, '127.0.0.1', '3128', 'CONNECT', `host${i % 50}.example`, '443', deny ? 'TCP_DENIED' : 'TCP_TUNNEL', deny ? '403' : '200',
    String(1000 + (i % 300)), deny ? 'HIER_NONE' : 'HIER_DIRECT', '-', i % 2 ? 'inference-router' : 'agent-runtime', 'strict'].join('\t');
}

const count = (store: AuditStore): number => (store.db.prepare("SELECT count(*) AS n FROM audit_log WHERE action LIKE 'egress.%'").get() as { n: number }).n;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The figures. */
export async function main(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'egress-bench-'));
  const figures: Figure[] = [];
  const out = (f: Figure): void => { figures.push(f); console.log(`${f.name.padEnd(60)} ${f.value.toFixed(f.value < 10 ? 2 : 0).padStart(10)} ${f.unit}${f.target ? `  (target ${f.target}: ${f.pass ? 'PASS' : 'FAIL'})` : ''}`); };
  try {
    // 1. Throughput: lines already written, shipped to the end; beside plain appends of the same rows.
    const N = 20_000;
    const log1 = join(root, 'tput', 'access.log');
    const store1 = AuditStore.open(join(root, 'tput'), MIGRATIONS);
    const w1 = new ChainWriter(store1, keys);
    writeFileSync(log1, Array.from({ length: N }, (_, i) => `${line(i)}\n`).join(''));
    const shipper1 = new EgressShipper(accessLogFile(log1), new SqliteEgressCursor(store1.db), w1, TENANT);
    let t0 = performance.now();
    let shipped = 0;
    while (shipped < N) { const n = await shipper1.pass(); if (!n) break; shipped += n; }
    const shipS = (performance.now() - t0) / 1000;
    if (shipped !== N || count(store1) !== N) throw new Error(`shipped ${shipped}, rows ${count(store1)}, expected ${N}`);
    const storeB = AuditStore.open(join(root, 'plain'), MIGRATIONS);
    const wB = new ChainWriter(storeB, keys);
    const rows = Array.from({ length: N }, (_, i) => egressRowOf(line(i), TENANT)!);
    t0 = performance.now();
    await Promise.all(rows.map((r) => wB.append(r)));
    const plainS = (performance.now() - t0) / 1000;
    out({ name: 'shipper: log lines -> audit rows', value: N / shipS, unit: 'rows/s' });
    out({ name: 'baseline: the same rows appended directly', value: N / plainS, unit: 'rows/s' });
    out({ name: 'ratio shipper / direct appends', value: (N / shipS) / (N / plainS), unit: 'x' });
    w1.close(); wB.close(); store1.close(); storeB.close();

    // 2 + 3. Lag at 100 requests/s, with a rotation and a shipper restart in the middle.
    const dir = join(root, 'lag');
    const log2 = join(dir, 'access.log');
    const store2 = AuditStore.open(dir, MIGRATIONS);
    const w2 = new ChainWriter(store2, keys);
    writeFileSync(log2, '');
    const written: number[] = [];
    let shipper = new EgressShipper(accessLogFile(log2), new SqliteEgressCursor(store2.db), w2, TENANT);
    let stop = false;
    const seen: number[] = [];
    const poller = (async () => {
      while (!stop) {
        await shipper.pass();
        const n = count(store2);
        const now = performance.now();
        while (seen.length < n && seen.length < written.length) seen.push(now - written[seen.length]!);
        await sleep(250);
      }
    })();
    const RATE = 100;
    const SECONDS = 5;
    const start = performance.now();
    for (let i = 0; i < RATE * SECONDS; i++) {
      const due = start + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (i === RATE * 2) { renameSync(log2, `${log2}.1`); writeFileSync(log2, ''); }
      if (i === RATE * 3) shipper = new EgressShipper(accessLogFile(log2), new SqliteEgressCursor(store2.db), w2, TENANT);
      appendFileSync(log2, `${line(i)}\n`);
      written.push(performance.now());
    }
    const end = performance.now() + 5000;
    while (count(store2) < written.length && performance.now() < end) await sleep(50);
    stop = true;
    await poller;
    await shipper.pass();
    const total = count(store2);
    out({ name: `lag at ${RATE} req/s, p50 (poll every 250 ms)`, value: pct(seen, 50), unit: 'ms' });
    out({ name: `lag at ${RATE} req/s, p95`, value: pct(seen, 95), unit: 'ms' });
    out({ name: `lag at ${RATE} req/s, max`, value: Math.max(...seen), unit: 'ms' });
    out({ name: 'rows for lines written across a rotation and a restart', value: total, unit: `of ${written.length}`, target: `= ${written.length}`, pass: total === written.length });
    w2.close(); store2.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return figures;
}

await runIfEntry(import.meta.url, main);
