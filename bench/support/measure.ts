/**
 * Measurement helpers shared by the benchmarks: percentiles, services in worker threads (as under
 * the supervisor), and time to the first streamed token.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Pool } from 'undici';

const WORKER = fileURLToPath(new URL('./worker.js', import.meta.url));

/** The p-th percentile (0-100) of `xs`, nearest rank. */
export function pct(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** Start a service module's `start(cfg)` in a worker thread; returns its port and a stop function. */
export async function spawnService(module: string, cfg: unknown): Promise<{ port: number; stop(): Promise<void> }> {
  const w = new Worker(WORKER, { workerData: { module, cfg } });
  const port = await new Promise<number>((resolve, reject) => {
    w.once('message', (m: { port: number }) => resolve(m.port));
    w.once('error', reject);
  });
  return { port, stop: async () => { w.postMessage('close'); await new Promise((r) => w.once('exit', r)); } };
}

/**
 * POST a streamed request and return milliseconds to the first chunk containing `marker`; the rest
 * of the answer is drained. @throws when the status is not 200 or the marker never comes.
 */
export async function ttft(pool: Pool, path: string, headers: Record<string, string>, body: string, marker: string): Promise<number> {
  const t0 = process.hrtime.bigint();
  const r = await pool.request({ method: 'POST', path, headers: { ...headers, 'content-type': 'application/json' }, body });
  if (r.statusCode !== 200) throw new Error(`${path}: HTTP ${r.statusCode} ${await r.body.text()}`);
  let first = -1;
  let buf = '';
  for await (const chunk of r.body) {
    if (first < 0) {
      buf += (chunk as Buffer).toString('utf8');
      if (buf.includes(marker)) first = Number(process.hrtime.bigint() - t0) / 1e6;
    }
  }
  if (first < 0) throw new Error(`${path}: no token in the answer`);
  return first;
}

/** One printed figure of a benchmark (bench/audit.ts `Figure`). */
interface PrintedFigure { name: string; value: number; unit: string; target?: string; pass?: boolean }

/**
 * Run `main` and print its figures when the benchmark file `moduleUrl` (its `import.meta.url`) is the
 * process's entry (`node dist/bench/<name>.js`), then exit; `bench/run.ts` imports `main` instead.
 */
export async function runIfEntry(moduleUrl: string, main: () => Promise<PrintedFigure[]>): Promise<void> {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const figs = await main();
  for (const f of figs) console.log(`${f.pass === undefined ? ' ' : f.pass ? '✓' : '✗'} ${f.name}: ${Number.isInteger(f.value) ? f.value : f.value.toFixed(3)} ${f.unit}${f.target ? ` (target ${f.target})` : ''}`);
  process.exit(0);
}
