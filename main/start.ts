/**
 * `npm start`: the desktop app when Electron's binary is present, else the headless stack.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { runHeadless } from './headless.js';
import { launchInstalledVersion } from './update/launch.js';

/** Path of Electron's binary when the `electron` package and its binary are installed, else null. */
export function electronBinary(): string | null {
  try {
    const req = createRequire(import.meta.url);
    const bin = req('electron') as unknown;
    return typeof bin === 'string' && existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}

const bin = electronBinary();
// Issue 19 item 4: an installed update version runs instead of this tree (main/update/launch.ts),
// rolled back when it fails to become ready; the headless path launches inside runHeadless.
const launched = bin && existsSync(new URL('./app/main.js', import.meta.url))
  ? await launchInstalledVersion('dist/main/app/main.js', bin, process.env) : null;
if (launched !== null) {
  process.exit(launched);
} else if (bin && existsSync(new URL('./app/main.js', import.meta.url))) {
  const child = spawn(bin, [new URL('./app/main.js', import.meta.url).pathname], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  process.stderr.write('svc: Electron binary not present; starting the headless stack\n');
  void runHeadless();
}
