/**
 * Webhook verification figure (issue 18 "Figures": webhook verification p50 at most 1 ms), side by
 * side in one run: the runtime's `verifyWebhook` (timestamp window, HMAC-SHA256 over
 * `ts + "." + raw body`, constant-time compare) against a plain `JSON.parse` of the same body,
 * for a small (1 KiB) and a large (64 KiB) JSON payload. Each figure is the p50 of single calls.
 */
import { randomBytes } from 'node:crypto';
import { verifyWebhook, signWebhook } from '../services/agent-runtime/src/domain/webhooks/verify.js';
import { newWebhookSecret } from '../services/agent-runtime/src/domain/webhooks/service.js';
import type { Figure } from './audit.js';
import { runIfEntry } from './support/measure.js';

const ROUNDS = 20_000;

function p50(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function body(bytes: number): Buffer {
  const filler = randomBytes(Math.ceil(bytes * 0.6)).toString('base64').slice(0, Math.max(0, bytes - 80));
  return Buffer.from(JSON.stringify({ event: 'build.failed', job: 'nightly-42', detail: filler }), 'utf8');
}

function timeEach(fn: () => void): number {
  for (let i = 0; i < 1000; i++) fn();
  const samples: number[] = new Array(ROUNDS);
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    fn();
    samples[i] = performance.now() - t;
  }
  return p50(samples);
}

/** Run the benchmark. */
export async function main(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const out = (f: Figure): void => { figures.push(f); process.stdout.write(`${f.name.padEnd(86)} ${f.value.toFixed(4).padStart(10)} ${f.unit}${f.target ? `  (target ${f.target}: ${f.pass ? 'PASS' : 'FAIL'})` : ''}\n`); };
  const secret = newWebhookSecret();
  for (const size of [1024, 64 * 1024]) {
    const raw = body(size);
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = `sha256=${signWebhook(secret, ts, raw)}`;
    let ok = 0;
    const verify = timeEach(() => { if (verifyWebhook(secret, ts, sig, raw).ok) ok++; });
    if (ok === 0) throw new Error('verification failed in the bench');
    const text = raw.toString('utf8');
    const parse = timeEach(() => { JSON.parse(text); });
    const label = `${Math.round(size / 1024)} KiB`;
    out({ name: `webhook verify p50, ${label} body (timestamp + HMAC-SHA256 + constant-time compare)`, value: verify, unit: 'ms', target: '<= 1 ms', pass: verify <= 1 });
    out({ name: `  baseline: JSON.parse of the same ${label} body p50`, value: parse, unit: 'ms' });
    out({ name: `  verify / JSON.parse, ${label}`, value: verify / parse, unit: 'x' });
  }
  return figures;
}

await runIfEntry(import.meta.url, main);
