/**
 * Cold start and idle memory of the headless stack (issue 2 "Figures"), side by side with a
 * baseline of one plain fastify server process:
 *  - time from spawning `node dist/main/headless.js` to its `svc ready` line (target: at most 3 s);
 *  - RSS of the whole stack (one process, eleven worker threads) after 3 s idle (target: at most 350 MB).
 * Each is measured three times on a fresh data directory; medians are printed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SERVICE_NAMES, portEnvName } from '../services/shared/services.js';
import type { Figure } from './audit.js';

const HEADLESS = fileURLToPath(new URL('../main/headless.js', import.meta.url));
const BARE = fileURLToPath(new URL('./support/bare-server.js', import.meta.url));

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

async function run(entry: string, marker: RegExp, env: Record<string, string>): Promise<{ ms: number; rss: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [entry], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  const ms = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); if (marker.test(out)) resolve(performance.now() - t0); });
    child.on('exit', (code) => reject(new Error(`${entry} exited with ${code} before ready`)));
  });
  await new Promise((r) => setTimeout(r, 3000));
  const rss = rssMb(child.pid!);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return { ms, rss };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Run the stack benchmark and return its figures. */
export async function main(): Promise<Figure[]> {
  const stack: Array<{ ms: number; rss: number }> = [];
  const bare: Array<{ ms: number; rss: number }> = [];
  for (let i = 0; i < 3; i++) {
    const env: Record<string, string> = { SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-stack-')), SVC_LOG_LEVEL: 'warn' };
    for (const n of SERVICE_NAMES) env[portEnvName(n)] = '0';
    bare.push(await run(BARE, /ready/, {}));
    stack.push(await run(HEADLESS, /svc ready /, env));
  }
  const sMs = median(stack.map((x) => x.ms)); const bMs = median(bare.map((x) => x.ms));
  const sRss = median(stack.map((x) => x.rss)); const bRss = median(bare.map((x) => x.rss));
  console.log('\n== headless stack: cold start and idle memory (median of 3, fresh data dir each) ==');
  console.log(`cold start to "svc ready": ${sMs.toFixed(0)} ms (one bare fastify process: ${bMs.toFixed(0)} ms, ratio ${(sMs / bMs).toFixed(2)}) (target <= 3000 ms)`);
  console.log(`idle RSS after 3 s: ${sRss.toFixed(0)} MB for 11 services (one bare fastify process: ${bRss.toFixed(0)} MB, ratio ${(sRss / bRss).toFixed(2)}) (target <= 350 MB)`);
  return [
    { name: 'cold start to svc ready', value: sMs, unit: 'ms', target: '<= 3000', pass: sMs <= 3000 },
    { name: 'idle RSS of the stack', value: sRss, unit: 'MB', target: '<= 350', pass: sRss <= 350 },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
}
