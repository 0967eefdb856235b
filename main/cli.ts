/**
 * `npm run serve -- --service <name>[,<name>...]` and `--all`, and the `svc` bin (issue 21 item 2;
 * DESIGN.md "Scale-out path"):
 *
 * - `--service a,b` (repeatable): run those services in this process (main/cli-host.ts), calling
 *   the others where `SVC_<SERVICE>_URL` says. Prints `svc ready <url>` (the gateway's when it runs
 *   here, else the first service's) once they all listen; SIGINT/SIGTERM stop them (gateway first,
 *   audit last) and exit 0.
 * - `--all`: every service as its own OS process (this program with `--service <name>`, one child
 *   each), ports resolved up front and handed to the children with the peer URLs; first-start
 *   secrets are written once by this parent before any child starts. Prints `svc ready <gateway
 *   url>`; a signal stops the children in the supervisor's order; a child that dies stops the rest
 *   and exits 1 (a process manager restarts the whole).
 * - `--init`: write first-start secrets into the data directory and exit (a compose init step, so
 *   instances sharing one data directory agree on them).
 * - no flag: the desktop-style headless stack (main/headless.ts, worker threads).
 *
 * Exit codes: 0 clean stop, 1 start failure, 64 bad flags (EX_USAGE), 78 configuration (EX_CONFIG).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadStackConfig, type StackConfig } from './config/index.js';
import { peerUrlEnvName } from './config/scale-out.js';
import { SERVICE_NAMES, portEnvName, type ServiceName } from '../services/shared/services.js';
import { ServiceHost } from './cli-host.js';
import { freePort } from './supervisor/index.js';

/** Parsed command line. */
export interface CliArgs {
  mode: 'services' | 'all' | 'init' | 'headless' | 'help';
  services: ServiceName[];
}

/** The usage text. */
export const USAGE = `usage: svc [--service <name>[,<name>...]]... | --all | --init
  --service  run these services in this process (repeatable); peers at SVC_<SERVICE>_URL
  --all      run every service as its own process
  --init     write first-start secrets into SVC_DATA_DIR and exit
services: ${SERVICE_NAMES.join(', ')}`;

/**
 * Parse the flags.
 * @throws Error with a message for the user (unknown flag or service, `--all` with `--service`).
 */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  const services: ServiceName[] = [];
  let all = false; let init = false; let help = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    let value: string | undefined;
    if (a === '--service' || a === '--services') value = argv[++i];
    else if (a.startsWith('--service=') || a.startsWith('--services=')) value = a.slice(a.indexOf('=') + 1);
    else if (a === '--all') { all = true; continue; } else if (a === '--init') { init = true; continue; } else if (a === '--help' || a === '-h') { help = true; continue; } else throw new Error(`unknown flag ${a}`);
    if (!value) throw new Error('--service needs a service name');
    for (const n of value.split(',').map((s) => s.trim()).filter(Boolean)) {
      if (!(SERVICE_NAMES as readonly string[]).includes(n)) throw new Error(`unknown service "${n}"`);
      if (!services.includes(n as ServiceName)) services.push(n as ServiceName);
    }
  }
  if (help) return { mode: 'help', services };
  if ([all, init, services.length > 0].filter(Boolean).length > 1) throw new Error('use one of --service, --all, --init');
  return { mode: all ? 'all' : init ? 'init' : services.length ? 'services' : 'headless', services };
}

function loadOrExit(env: NodeJS.ProcessEnv): Readonly<StackConfig> {
  try {
    return loadStackConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`svc: refusing to start: ${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
}

function onSignals(stop: (signal: string) => void): void {
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** `--service`: run the named services here until a signal. */
async function runServices(names: ServiceName[]): Promise<void> {
  const stack = loadOrExit(process.env);
  const host = new ServiceHost(stack, names);
  let stopping = false;
  onSignals((signal) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`svc: ${signal} received, stopping ${names.join(', ')}\n`);
    host.stop().then(() => process.exit(0), () => process.exit(1));
  });
  try {
    const urls = await host.start();
    process.stdout.write(`svc ready ${urls.gateway ?? urls[names[0]!]}\n`);
  } catch (err) {
    process.stderr.write(`svc: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}

/** Start one child `--service name` and resolve once it prints its ready line. */
function spawnChild(name: ServiceName, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--service', name], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (line.startsWith('svc ready ')) resolve(child);
      else process.stdout.write(`${name}: ${line}\n`);
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with code ${code} before it was ready`)));
  });
}

/** `--all`: every service as its own process. */
async function runAll(): Promise<void> {
  const stack = loadOrExit(process.env); // writes first-start secrets once, before any child reads them
  const taken = new Set<number>(Object.values(stack.ports).filter((p) => p > 0));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SERVICE_NAMES) {
    const port = stack.ports[name] || await freePort(stack.host, taken);
    env[portEnvName(name)] = String(port);
    env[peerUrlEnvName(name)] ??= `http://127.0.0.1:${port}`;
  }
  const children = new Map<ServiceName, ChildProcess>();
  let stopping = false;
  const stopAll = async (code: number): Promise<never> => {
    stopping = true;
    const order: ServiceName[][] = [['gateway'], SERVICE_NAMES.filter((n) => n !== 'gateway' && n !== 'audit'), ['audit']];
    for (const group of order) {
      await Promise.all(group.map((n) => children.get(n)).filter((c): c is ChildProcess => !!c && c.exitCode === null && c.signalCode === null).map((c) => new Promise<void>((resolve) => {
        const t = setTimeout(() => { c.kill('SIGKILL'); }, stack.supervisor.shutdownTimeoutMs);
        c.once('exit', () => { clearTimeout(t); resolve(); });
        c.kill('SIGTERM');
      })));
    }
    process.exit(code);
  };
  onSignals((signal) => { if (!stopping) { process.stderr.write(`svc: ${signal} received, stopping\n`); void stopAll(0); } });
  const watch = (name: ServiceName, c: ChildProcess): void => {
    children.set(name, c);
    c.once('exit', (code) => { if (!stopping) { process.stderr.write(`svc: ${name} exited (code ${code}); stopping the stack\n`); void stopAll(1); } });
  };
  try {
    await Promise.all(SERVICE_NAMES.filter((n) => n !== 'gateway').map(async (n) => watch(n, await spawnChild(n, env))));
    watch('gateway', await spawnChild('gateway', env));
  } catch (err) {
    process.stderr.write(`svc: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    await stopAll(1);
  }
  process.stdout.write(`svc ready ${env[peerUrlEnvName('gateway')]}\n`);
}

/**
 * Run the command line.
 * @param argv the arguments after the program name.
 */
export async function main(argv: readonly string[]): Promise<void> {
  let args: CliArgs;
  try {
    args = parseCliArgs(argv);
  } catch (err) {
    process.stderr.write(`svc: ${(err as Error).message}\n${USAGE}\n`);
    process.exit(64);
  }
  if (args.mode === 'help') { process.stdout.write(`${USAGE}\n`); return; }
  if (args.mode === 'init') {
    const stack = loadOrExit(process.env);
    process.stdout.write(`svc: data directory ${stack.dataDir} initialised\n`);
    return;
  }
  if (args.mode === 'services') return runServices(args.services);
  if (args.mode === 'all') return runAll();
  const { runHeadless } = await import('./headless.js');
  return runHeadless();
}

if (import.meta.url === `file://${process.argv[1]}`) void main(process.argv.slice(2));
