/**
 * Run N audit writer processes on PostgreSQL at once (test/helpers/pg-audit-writer.ts) and collect
 * their reports (issue 21 items 1 and 5).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PgWriterJob } from './pg-audit-writer.js';

/** The compiled writer script (run it with `SVC_PG_WRITER` set to a `PgWriterJob`). */
export const PG_WRITER_SCRIPT = fileURLToPath(new URL('./pg-audit-writer.js', import.meta.url));
const WRITER = PG_WRITER_SCRIPT;

/** One writer's report. */
export interface PgWriterReport { worker: number; appended: number; ms: number }

/**
 * Start one child per job and wait for all.
 * @throws Error naming the worker and its stderr when one fails.
 */
export async function runPgWriters(jobs: PgWriterJob[]): Promise<PgWriterReport[]> {
  return Promise.all(jobs.map((job) => new Promise<PgWriterReport>((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER], { env: { ...process.env, SVC_PG_WRITER: JSON.stringify(job) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) { reject(new Error(`writer ${job.worker} exited with ${code}: ${err.slice(-2000)}`)); return; }
      try { resolve(JSON.parse(out.trim().split('\n').pop()!) as PgWriterReport); } catch { reject(new Error(`writer ${job.worker} printed no report: ${out} ${err}`)); }
    });
  })));
}
