/**
 * Scale-out test parts (issue 21 items 2, 3, 5): a throwaway redis-server, and a second process
 * running some services with `svc --service ...` (main/cli.ts) beside a desktop test stack, on the
 * same data directory (shared first-start secrets) and, when the stack runs on PostgreSQL, the same
 * database.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as net from 'node:net';
import { freePort } from '../../main/supervisor/index.js';
import { peerUrlEnvName } from '../../main/config/scale-out.js';
import { SERVICE_NAMES, portEnvName, type ServiceName } from '../../services/shared/services.js';
import type { TestStack } from './stack.js';

/** Whether redis-server is installed. */
export const hasRedis = spawnSync('sh', ['-c', 'command -v redis-server']).status === 0;

const CLI = fileURLToPath(new URL('../../main/cli.js', import.meta.url));

/** Wait until something accepts TCP connections on 127.0.0.1:`port` (5 s). */
export async function waitPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on ${port}`);
}

/** A running redis-server (no persistence). */
export interface TestRedis { url: string; stop(): void }

/** Start redis-server on a free loopback port. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort('127.0.0.1');
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await waitPort(port);
  return { url: `redis://127.0.0.1:${port}`, stop: () => { proc.kill('SIGTERM'); } };
}

/** A second process of the deployment. */
export interface PeerProcess {
  /** `svc ready <url>`: the gateway's URL when it runs there, else its first service's. */
  url: string;
  proc: ChildProcess;
  /** SIGTERM, resolving to the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Start `services` in a process of their own (`svc --service a,b`), every other service the stack's.
 * @param env added to the child's environment (REDIS_URL, ...); the stack's SVC_DATABASE_URL is passed on.
 */
export async function startPeerProcess(stack: TestStack, services: ServiceName[], env: Record<string, string> = {}): Promise<PeerProcess> {
  const ports = Object.fromEntries(stack.sup.status().map((s) => [s.name, s.port])) as Record<string, number>;
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env, ...env,
    SVC_DATA_DIR: stack.dataDir, SVC_ENV: 'test', SVC_LOG_LEVEL: 'warn', SVC_SCRYPT_N: '1024', SANDBOX_WARM_POOL: '0',
    SVC_TENANT_ID: 'acme', SVC_SECRET_STORE: 'file', SVC_PUBLIC_URL: stack.url,
    ...(stack.databaseUrl ? { SVC_DATABASE_URL: stack.databaseUrl } : {}),
  };
  for (const n of SERVICE_NAMES) {
    childEnv[portEnvName(n)] = '0';
    if (!services.includes(n)) childEnv[peerUrlEnvName(n)] = `http://127.0.0.1:${ports[n]}`;
  }
  const proc = spawn(process.execPath, [CLI, '--service', services.join(',')], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let errText = '';
  proc.stderr!.on('data', (d: Buffer) => { errText += d.toString(); });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => { if (line.startsWith('svc ready ')) resolve(line.slice('svc ready '.length)); });
    proc.once('exit', (code) => reject(new Error(`process ${services.join(',')} exited with ${code}: ${errText}`)));
  });
  return {
    url, proc,
    stop: () => {
      if (proc.exitCode !== null) return Promise.resolve(proc.exitCode);
      const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
      proc.kill('SIGTERM');
      return exited;
    },
  };
}
