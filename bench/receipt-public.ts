/**
 * Receipts a reviewer can verify without the secret (issue 22 "Figures"), side by side in one run
 * on a temp database:
 *
 *  1. verification of one bundle whose chain suffix holds 1,000 rows: the public-key path
 *     (parse + keyless checks + envelope Ed25519 + checkpoint, node:crypto; no HMAC key) beside
 *     the HMAC path of the same bundle (parse + the eight checks with the secret), core p50;
 *     and once the renderer's path (pure-TS hashes, @noble/ed25519) for reference
 *  2. sealing a 50-event turn with the Ed25519 envelope signature vs without (same chain, turns
 *     sealed alternately), p50 and the difference
 *
 * Run: `npx tsc -p . && node dist/bench/receipt-public.js` (or `npm run bench`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { verifyAsync as nobleVerify } from '@noble/ed25519';
import { ChainWriter } from '../services/audit/src/domain/chain-writer.js';
import { keyRingFromConfig, nodeHashProvider, type KeyProvider } from '../services/audit/src/domain/keys.js';
import { ReceiptService } from '../services/audit/src/domain/receipts.js';
import { TurnService } from '../services/audit/src/domain/turns.js';
import { receiptV2 } from '../services/audit/src/receipt-v2.js';
import { AuditStore } from '../services/audit/src/store/audit-store.js';
import { ReceiptKeyStore } from '../services/audit/src/store/receipt-keys.js';
import { publishedReceiptKeys } from '../services/audit/src/routes/receipt-keys.js';
import {
  normaliseInput, parsePublicKeys, verifyBundlePublicSync, verifyReceiptJson, verifyReceiptJsonPublic,
} from '../services/audit/src/verifier/index.js';
import { nodeEd25519Verify } from '../scripts/svc-verify-keys.js';
import type { Figure } from './audit.js';
import { pct } from './support/measure.js';
import { benchTurnEvents } from './audit.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const MIGRATIONS = join(ROOT, 'migrations');
const TENANT = 'bench-tenant';
const KEY = 'bench-key-7c1e0f9a2b3d4c5e6f708192a3b4c5d6';
const keys: KeyProvider = ((ring) => () => ring)(keyRingFromConfig({ signingKey: KEY, keyVersion: 'v1', previousSigningKey: null, previousKeyVersion: null }));

/** Run both figures and print them. @returns the figures. */
export async function main(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'receipt-public-bench-'));
  const figures: Figure[] = [];
  const out = (f: Figure) => { figures.push(f); process.stdout.write(`${f.name.padEnd(66)} ${f.value.toFixed(3).padStart(10)} ${f.unit}${f.target ? `  (target ${f.target}: ${f.pass ? 'PASS' : 'FAIL'})` : ''}\n`); };
  const store = AuditStore.open(join(root, 'db'), MIGRATIONS);
  try {
    const keyStore = new ReceiptKeyStore(root);
    const v2 = receiptV2(store, keyStore, 'bench-host');
    const writer = new ChainWriter(store, keys);
    const plain = new TurnService(store, writer);
    const signed = new TurnService({ turns: store.turns, events: store.events, envelopes: v2.envelopes }, writer);

    // 2. sealing with vs without the Ed25519 signature, alternately on one chain.
    const withSig: number[] = [];
    const without: number[] = [];
    for (let k = 0; k < 300; k++) {
      for (const [svc, times, tag] of [[plain, without, 'P'], [signed, withSig, 'S']] as const) {
        const id = `T${tag}${String(k).padStart(6, '0')}`;
        await svc.ingest(benchTurnEvents(id, 50), TENANT);
        const t0 = performance.now();
        await svc.sealNow(TENANT, id, 'watermark_timeout');
        times.push(performance.now() - t0);
      }
    }
    const p50s = pct(withSig, 50);
    const p50p = pct(without, 50);
    out({ name: 'seal a 50-event turn WITH the Ed25519 envelope signature, p50', value: p50s, unit: 'ms' });
    out({ name: 'seal a 50-event turn without it (HMACs only), p50', value: p50p, unit: 'ms' });
    out({ name: 'Ed25519 signature cost per seal (p50 difference)', value: p50s - p50p, unit: 'ms', target: '<= +0.2 ms', pass: p50s - p50p <= 0.2 });

    // 1. one bundle with a 1,000-row suffix, a checkpoint at its head.
    await signed.ingest(benchTurnEvents('TSUFFIX', 50), TENANT);
    await signed.sealNow(TENANT, 'TSUFFIX', 'watermark_timeout');
    const ps: Promise<unknown>[] = [];
    for (let i = 0; i < 999; i++) ps.push(writer.append({ tenant_id: TENANT, action: 'after', detail: { i, note: 'row after the anchor' } }));
    await Promise.all(ps);
    await writer.submit(() => v2.checkpoints.signHeadIfMoved(TENANT));
    const bundle = (await new ReceiptService(store, keys, signed, v2).bundle(TENANT, 'TSUFFIX'))!;
    if (bundle.proof.audit_chain.suffix.length !== 1000 || !bundle.proof.checkpoint) throw new Error('bundle is not a 1000-row suffix with a checkpoint');
    const text = JSON.stringify(bundle);
    const publicKeys = parsePublicKeys(publishedReceiptKeys(keyStore.keys()), nodeHashProvider);
    const pub: number[] = [];
    const hmac: number[] = [];
    for (let k = 0; k < 30; k++) {
      let t0 = performance.now();
      const r = verifyBundlePublicSync(normaliseInput({ bundle: JSON.parse(text) }), { publicKeys, ed25519: nodeEd25519Verify, hash: nodeHashProvider });
      pub.push(performance.now() - t0);
      if (!r.ok || !r.checked.includes('checkpoint') || !r.checked.includes('envelope_signature')) throw new Error(`public verification failed: ${JSON.stringify(r.checks.filter((c) => !c.ok))}`);
      t0 = performance.now();
      const h = verifyReceiptJson({ bundle: JSON.parse(text) }, { keys: { v1: KEY }, hash: nodeHashProvider });
      hmac.push(performance.now() - t0);
      if (!h.ok) throw new Error('HMAC verification failed');
    }
    out({ name: 'public-key verification, 1000-row suffix (no secret), core p50', value: pct(pub, 50), unit: 'ms', target: '<= 50 ms', pass: pct(pub, 50) <= 50 });
    out({ name: 'HMAC verification of the same bundle (with the secret), core p50', value: pct(hmac, 50), unit: 'ms' });
    const rt0 = performance.now();
    const rr = await verifyReceiptJsonPublic({ bundle: JSON.parse(text) }, { publicKeys, ed25519: (k, m, s) => nobleVerify(s, m, k) });
    if (!rr.ok) throw new Error('renderer-path verification failed');
    out({ name: 'same, renderer path (pure-TS hashes, @noble/ed25519), once', value: performance.now() - rt0, unit: 'ms' });
  } finally {
    store.close();
    rmSync(root, { recursive: true, force: true });
  }
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
