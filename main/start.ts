/**
 * `npm start`: the desktop app when Electron's binary is present, else the headless stack.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { runHeadless } from './headless.js';

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
if (bin && existsSync(new URL('./app/main.js', import.meta.url))) {
  const child = spawn(bin, [new URL('./app/main.js', import.meta.url).pathname], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  process.stderr.write('svc: Electron binary not present; starting the headless stack\n');
  void runHeadless();
}
