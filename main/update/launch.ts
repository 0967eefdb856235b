/**
 * The update launcher (issue 19 item 4; docs/update-bundles.md "Running an installed version"): at
 * start, before any store opens, apply what is pending and, when `state.json`'s current version holds
 * a runnable tree (`<versions>/<v>/package.json` + `<versions>/<v>/dist/<entry>`), run that version's
 * entry as a child process with the same argv, environment (plus `SVC_LAUNCHED_VERSION=<v>`), stdio
 * and signals, and exit with its exit code.
 *
 * Way back: when the child exits, or prints no `svc ready` line within the ready timeout, before it
 * is ready, it is stopped (SIGTERM, then SIGKILL after 5 s), the version is rolled back
 * (`rollBackFailedLaunch`: previous becomes current, the failure is recorded in `state.json` and
 * shown by `GET /v1/admin/deploy`) and the launcher tries the version now current, or answers null so
 * the caller runs the installed app in-process.
 *
 * Dependencies: a code bundle ships `package.json` and `dist/` (and may ship `migrations/`,
 * `assets/`, `proto/`, `dist/renderer/`); whatever of `node_modules`, `proto`, `migrations`, `assets`, `models`, `dist/renderer` it does not ship is
 * symlinked from the installed app's root, so bare imports resolve against the installed app's
 * `node_modules` (a bundle that needs other dependencies needs a full installer instead).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { applyPendingUpdate, readUpdateState, rollBackFailedLaunch } from './bundle.js';

/** Folders a version tree borrows from the installed app when its bundle does not ship them. */
export const BORROWED_FROM_APP = ['node_modules', 'proto', 'migrations', 'assets', 'models', 'dist/renderer'] as const;

/** The line a started stack prints on stdout once every service is ready (main/headless.ts). */
export const READY_LINE = /^svc ready (\S+)/m;

/** What the launcher needs. */
export interface LaunchOptions {
  dataDir: string;
  /** The installed app's root (its `package.json` beside `migrations/`), where borrowed folders come from. */
  appRoot: string;
  /** The entry inside a version tree, e.g. `dist/main/headless.js` or `dist/main/app/main.js`. */
  entry: string;
  /** The program that runs the entry (`process.execPath`, or Electron's binary). */
  runtime: string;
  /** Arguments after the entry (the launcher's own `process.argv.slice(2)`). */
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  readyTimeoutMs: number;
  /** The env variable that marks the child as launched (main/config/update.ts LAUNCHED_VERSION_ENV). */
  markerEnv: string;
  log: (line: string) => void;
}

/** True when `dir` holds a runnable tree for `entry`. */
export function runnableTree(dir: string, entry: string): boolean {
  return existsSync(join(dir, 'package.json')) && existsSync(join(dir, entry));
}

/** Symlink the folders of BORROWED_FROM_APP that `dir` lacks from `appRoot` (idempotent). */
export function borrowFromApp(dir: string, appRoot: string): void {
  for (const name of BORROWED_FROM_APP) {
    const target = join(dir, name);
    let present = false;
    try { lstatSync(target); present = true; } catch { /* absent */ }
    if (present) continue;
    const from = name === 'node_modules' || name === 'proto' ? nearest(appRoot, name) : join(appRoot, name);
    if (from && existsSync(from)) symlinkSync(from, target, 'dir');
  }
}

/** The folder `name` the installed app finds by walking up (bare imports' `node_modules`, gRPC's `proto`): the nearest at or above `root`. */
function nearest(root: string, name: string): string | null {
  for (let dir = root; ; dir = dirname(dir)) {
    if (existsSync(join(dir, name))) return join(dir, name);
    if (dirname(dir) === dir) return null;
  }
}

/** Outcome of one launch attempt. */
type Attempt = { ok: true; code: number } | { ok: false; reason: string };

function attempt(o: LaunchOptions, version: string, dir: string): Promise<Attempt> {
  return new Promise((resolve) => {
    const child: ChildProcess = spawn(o.runtime, [join(dir, o.entry), ...o.args], {
      env: { ...o.env, [o.markerEnv]: version }, stdio: ['inherit', 'pipe', 'inherit'], cwd: process.cwd(),
    });
    let ready = false;
    let settled = false;
    let buf = '';
    const forward = (sig: NodeJS.Signals) => (): void => { child.kill(sig); };
    const sigs: Array<[NodeJS.Signals, () => void]> = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((s) => [s, forward(s)]);
    for (const [s, f] of sigs) process.on(s, f);
    const cleanup = (): void => { for (const [s, f] of sigs) process.off(s, f); clearTimeout(timer); };
    const fail = (reason: string): void => {
      if (settled) return;
      settled = true;
      cleanup();
      if (child.exitCode === null && child.signalCode === null) {
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => { clearTimeout(kill); resolve({ ok: false, reason }); });
        child.kill('SIGTERM');
      } else resolve({ ok: false, reason });
    };
    const timer = setTimeout(() => fail(`no "svc ready" within ${o.readyTimeoutMs} ms`), o.readyTimeoutMs);
    child.stdout!.on('data', (c: Buffer) => {
      process.stdout.write(c);
      if (ready) return;
      buf = (buf + c.toString('utf8')).slice(-4096);
      if (READY_LINE.test(buf)) { ready = true; clearTimeout(timer); }
    });
    child.on('error', (err) => fail(`could not start: ${err.message}`));
    child.on('exit', (code, signal) => {
      if (!ready) { fail(`exited before ready (${signal ?? `code ${code}`})`); return; }
      if (settled) return;
      settled = true;
      cleanup();
      resolve({ ok: true, code: code ?? (signal ? 1 : 0) });
    });
  });
}

/**
 * Run the current installed version, if any (see the file comment).
 * @returns the exit code the caller should exit with, or null when the installed app should run
 *          in-process (no runnable version, or every one failed and was rolled back).
 */
export async function launchCurrentVersion(o: LaunchOptions): Promise<number | null> {
  const applied = applyPendingUpdate(o.dataDir);
  if (applied) o.log(`svc: ${applied}`);
  for (let tries = 0; tries < 3; tries++) {
    const cur = readUpdateState(o.dataDir).current;
    if (!cur || !runnableTree(cur.dir, o.entry)) return null;
    borrowFromApp(cur.dir, o.appRoot);
    o.log(`svc: running installed version ${cur.version} from ${cur.dir}`);
    const r = await attempt(o, cur.version, cur.dir);
    if (r.ok) return r.code;
    const to = rollBackFailedLaunch(o.dataDir, cur.version, r.reason);
    o.log(`svc: version ${cur.version} failed to start (${r.reason}); rolled back to ${to ?? 'the installed app'}`);
  }
  return null;
}

/**
 * The start hook of main/headless.ts, main/start.ts and main/app/main.ts: reads the launcher's
 * settings through main/config and runs the current installed version's `entry` with `runtime`.
 * A process that was itself launched (`SVC_LAUNCHED_VERSION`) or runs one service (`--service`, a
 * supervisor's child) never launches again.
 * @returns the exit code to exit with, or null: run the installed app in-process.
 */
export async function launchInstalledVersion(entry: string, runtime: string, env: NodeJS.ProcessEnv, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<number | null> {
  const { readLaunchSettings, LAUNCHED_VERSION_ENV } = await import('../config/update.js');
  const settings = readLaunchSettings(env);
  if (settings.launchedVersion || process.argv.includes('--service')) return null;
  const { restorePaths } = await import('../config/backup.js');
  const { repoRoot } = await import('../config/index.js');
  const { dataDir } = await restorePaths(env);
  return launchCurrentVersion({
    dataDir, appRoot: repoRoot(), entry, runtime, args: process.argv.slice(2), env, readyTimeoutMs: settings.readyTimeoutMs, markerEnv: LAUNCHED_VERSION_ENV, log,
  });
}
