/**
 * Audit benchmarks (issue "Figures"), measured side by side in one run on temp databases
 * (WAL, synchronous=NORMAL, single writer):
 *
 *  1. append throughput: signed, canonicalised, HMAC-chained rows through the group-committing
 *     writer vs plain inserts of the same rows (same tables, same transaction size, no hashing);
 *     also one awaited append at a time (one row per transaction) for reference
 *  2. sealing a 50-event turn: p50 / p95 (envelope, Merkle root, HMAC, anchor row, commit)
 *  3. svc-verify on a bundle whose suffix holds 1,000 rows: in-process p50, and the CLI wall time
 *  4. full-chain verify of 100,000 rows (the five checks of GET /v1/admin/audit/verify)
 *
 * Run: `npx tsc -p . && node dist/bench/audit.js` (or import and call `main()`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ChainWriter } from '../services/audit/src/domain/chain-writer.js';
import { verifyChain } from '../services/audit/src/domain/chain-verify.js';
import { keyRingFromConfig, nodeHashProvider, type KeyProvider } from '../services/audit/src/domain/keys.js';
import { ReceiptService } from '../services/audit/src/domain/receipts.js';
import { TurnService } from '../services/audit/src/domain/turns.js';
import type { AuditRowRecord, ChainHeadRecord } from '../services/audit/src/domain/ports.js';
import { AuditStore } from '../services/audit/src/store/audit-store.js';
import { verifyReceiptJson } from '../services/audit/src/verifier/index.js';
import { pct } from './support/measure.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const MIGRATIONS = join(ROOT, 'migrations');
const TENANT = 'bench-tenant';
const KEY = 'bench-key-7c1e0f9a2b3d4c5e6f708192a3b4c5d6';
const keys: KeyProvider = ((ring) => () => ring)(keyRingFromConfig({ signingKey: KEY, keyVersion: 'v1', previousSigningKey: null, previousKeyVersion: null }));

/** One measured figure. */
export interface Figure { name: string; value: number; unit: string; target?: string; pass?: boolean }


function detailFor(i: number) {
  return { path: `/v1/docs/${i}`, method: 'GET', status: 200, bytes: 1024 + (i % 97), note: 'benchmark row with a typical small detail' };
}

async function signedAppends(dir: string, n: number, burst: number): Promise<{ store: AuditStore; seconds: number }> {
  const store = AuditStore.open(dir, MIGRATIONS);
  const writer = new ChainWriter(store, keys);
  const t0 = performance.now();
  for (let i = 0; i < n; i += burst) {
    const ps: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(n, i + burst); j++) {
      ps.push(writer.append({ tenant_id: TENANT, user_id: `user-${j % 50}`, action: 'doc.read', resource_type: 'doc', resource_id: `d${j}`, detail_type: 'access_v1', detail: detailFor(j) }));
    }
    await Promise.all(ps);
  }
  return { store, seconds: (performance.now() - t0) / 1000 };
}

/**
 * Plain inserts of the same rows: the rows and checkpoints the signed run wrote (same bytes), read
 * back before the clock starts, inserted into a fresh database in transactions of `batch` rows.
 */
function plainInserts(dir: string, source: AuditStore, batch: number): { seconds: number; n: number } {
  const rows = source.db.prepare('SELECT * FROM audit_log ORDER BY id').all() as AuditRowRecord[];
  const heads = source.db.prepare('SELECT * FROM chain_head ORDER BY seq').all() as ChainHeadRecord[];
  const store = AuditStore.open(dir, MIGRATIONS);
  const t0 = performance.now();
  for (let i = 0; i < rows.length; i += batch) {
    store.tx.transaction(() => {
      for (let j = i; j < Math.min(rows.length, i + batch); j++) store.log.insertRowAndHead(rows[j]!, heads[j]!);
    });
  }
  const seconds = (performance.now() - t0) / 1000;
  store.close();
  return { seconds, n: rows.length };
}

async function oneByOne(dir: string, n: number): Promise<number> {
  const store = AuditStore.open(dir, MIGRATIONS);
  const writer = new ChainWriter(store, keys);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await writer.append({ tenant_id: TENANT, action: 'doc.read', resource_id: `d${i}`, detail: detailFor(i) });
  const s = (performance.now() - t0) / 1000;
  store.close();
  return s;
}

/** `count` synthetic turn events of one turn in the bench tenant (200-character payloads), as audit ingests them. Shared with bench/receipt-public.ts. */
export function benchTurnEvents(turnId: string, count: number) {
  const base = Date.now();
  return Array.from({ length: count }, (_, i) => ({
    turn_id: turnId, event_id: `E${String(i).padStart(6, '0')}${turnId}`, tenant_id: TENANT, principal_id: 'user-1',
    emitter_service: i % 3 === 0 ? 'gateway' : 'agent-runtime', emitter_instance: 'bench', occurred_at: new Date(base + i).toISOString(),
    sequence_in_service: i + 1, payload_type: i === 0 ? 'turn_started' : 'model_response', payload_json: JSON.stringify({ i, text: 'x'.repeat(200) }),
  }));
}

/** Run every benchmark and print the figures. @returns the figures. */
export async function main(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'audit-bench-'));
  const figures: Figure[] = [];
  const out = (f: Figure) => { figures.push(f); process.stdout.write(`${f.name.padEnd(58)} ${f.value.toFixed(f.value < 10 ? 2 : 0).padStart(10)} ${f.unit}${f.target ? `  (target ${f.target}: ${f.pass ? 'PASS' : 'FAIL'})` : ''}\n`); };
  try {
    const N = 100_000;
    // 1. appends, side by side
    const { store: big, seconds: signedS } = await signedAppends(join(root, 'signed'), N, 1000);
    const plain = plainInserts(join(root, 'plain'), big, 1000);
    const signedRate = N / signedS;
    const plainRate = plain.n / plain.seconds;
    out({ name: 'signed chained appends (group commit, <=1000 rows/tx)', value: signedRate, unit: 'rows/s', target: '>= 30000', pass: signedRate >= 30_000 });
    out({ name: 'plain inserts of the same rows (same bytes, 1000 rows/tx)', value: plainRate, unit: 'rows/s' });
    out({ name: 'ratio signed / plain', value: signedRate / plainRate, unit: 'x', target: '>= 0.5', pass: signedRate / plainRate >= 0.5 });
    const oneS = await oneByOne(join(root, 'one'), 5000);
    out({ name: 'signed appends awaited one by one (1 row/tx)', value: 5000 / oneS, unit: 'rows/s' });

    // 4. full-chain verify of 100,000 rows
    const tv = performance.now();
    const rep = await verifyChain(big.log, keys, TENANT);
    const verifyS = (performance.now() - tv) / 1000;
    if (!rep.ok || rep.checked !== N) throw new Error(`chain verify failed: ${JSON.stringify(rep).slice(0, 300)}`);
    out({ name: `full-chain verify of ${N} rows`, value: verifyS, unit: 's', target: '<= 5 s', pass: verifyS <= 5 });

    // 2. sealing a 50-event turn
    const writer = new ChainWriter(big, keys);
    const turns = new TurnService(big, writer);
    const times: number[] = [];
    for (let k = 0; k < 200; k++) {
      const id = `T${String(k).padStart(6, '0')}`;
      await turns.ingest(benchTurnEvents(id, 50), TENANT);
      const t0 = performance.now();
      await turns.sealNow(TENANT, id, 'watermark_timeout');
      times.push(performance.now() - t0);
    }
    out({ name: 'seal a 50-event turn, p50', value: pct(times, 50), unit: 'ms', target: '<= 2 ms', pass: pct(times, 50) <= 2 });
    out({ name: 'seal a 50-event turn, p95', value: pct(times, 95), unit: 'ms' });

    // 3. svc-verify on a 1,000-row suffix: seal a turn, then 999 rows after it.
    await turns.ingest(benchTurnEvents('TSUFFIX', 50), TENANT);
    await turns.sealNow(TENANT, 'TSUFFIX', 'watermark_timeout');
    const ps: Promise<unknown>[] = [];
    for (let i = 0; i < 999; i++) ps.push(writer.append({ tenant_id: TENANT, action: 'after', detail: detailFor(i) }));
    await Promise.all(ps);
    const bundle = (await new ReceiptService(big, keys, turns).bundle(TENANT, 'TSUFFIX'))!;
    if (bundle.proof.audit_chain.suffix.length !== 1000) throw new Error('suffix is not 1000 rows');
    const text = JSON.stringify(bundle);
    const vt: number[] = [];
    for (let k = 0; k < 20; k++) {
      const t0 = performance.now();
      const r = verifyReceiptJson({ bundle: JSON.parse(text) }, { keys: { v1: KEY }, hash: nodeHashProvider });
      vt.push(performance.now() - t0);
      if (!r.ok) throw new Error('bundle did not verify');
    }
    out({ name: 'svc-verify core, 1000-row suffix (parse + 8 checks), p50', value: pct(vt, 50), unit: 'ms', target: '<= 100 ms', pass: pct(vt, 50) <= 100 });
    const pureT0 = performance.now();
    verifyReceiptJson({ bundle: JSON.parse(text) }, { keys: { v1: KEY } });
    out({ name: 'same with the pure-TS hashes (renderer path)', value: performance.now() - pureT0, unit: 'ms' });
    const file = join(root, 'bundle.json');
    writeFileSync(file, text);
    const ct0 = performance.now();
    const cli = spawnSync(join(ROOT, 'scripts/svc-verify'), ['--bundle', file, '--key-version', 'v1', '--key', KEY], { encoding: 'utf8' });
    const cliMs = performance.now() - ct0;
    if (cli.status !== 0) throw new Error(`svc-verify exited ${cli.status}: ${cli.stdout}${cli.stderr}`);
    out({ name: 'scripts/svc-verify process wall time (incl. node start)', value: cliMs, unit: 'ms' });
    writer.close();
    big.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return figures;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => { process.stderr.write(`${String(err)}\n`); process.exitCode = 1; });
}
