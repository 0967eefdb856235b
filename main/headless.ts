/**
 * `npm run serve`: the headless stack (DESIGN.md "Process model"). Prints `svc ready <gateway url>`
 * once every service is ready; stops cleanly on SIGINT/SIGTERM. A configuration error prints what to
 * set and exits with status 78 (EX_CONFIG).
 */
import { ConfigError, loadStackConfig } from './config/index.js';
import { Supervisor } from './supervisor/index.js';
import { applyPendingRestore } from './restore-step.js';
import { launchInstalledVersion } from './update/launch.js';

/** Run the headless stack until a signal arrives. */
export async function runHeadless(): Promise<void> {
  let stack;
  // Issue 19 item 2: a restore staged by the gateway applies before any store opens.
  const restored = await applyPendingRestore(process.env);
  if (restored) process.stderr.write(`svc: restored backup ${restored.id}; the replaced data directory is kept at ${restored.replacedDir ?? '(none)'}\n`);
  // Issue 19 item 4: an installed update version runs as a child (main/update/launch.ts), rolled back when it fails to become ready.
  const launched = await launchInstalledVersion('dist/main/headless.js', process.execPath, process.env);
  if (launched !== null) process.exit(launched);
  try {
    stack = loadStackConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`svc: refusing to start: ${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
  const sup = new Supervisor(stack);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`svc: ${signal} received, stopping\n`);
    sup.stop().then(() => process.exit(0), (err: unknown) => { process.stderr.write(`svc: stop failed: ${String(err)}\n`); process.exit(1); });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // SIGHUP: re-read key files and rotate the audit signing keys without a restart.
  process.on('SIGHUP', () => {
    try {
      sup.rotateAuditKeys(loadStackConfig(process.env));
      process.stderr.write('svc: audit signing keys reloaded\n');
    } catch (err) {
      process.stderr.write(`svc: key reload refused: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  });
  try {
    const url = await sup.start();
    process.stdout.write(`svc ready ${url}\n`);
    process.stderr.write(`svc: data directory ${stack.dataDir}\n`);
  } catch (err) {
    process.stderr.write(`svc: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // Issue 21 item 2: `npm run serve -- --service <name>` / `--all` / `--init` (main/cli.ts).
  if (process.argv.length > 2) void import('./cli.js').then((cli) => cli.main(process.argv.slice(2)));
  else void runHeadless();
}
