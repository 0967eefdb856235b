/**
 * Where the product lives on disk: the repository (or installed app) root and the OS app-data folder
 * that is the default data directory (README "SVC_DATA_DIR"). Split from ./index.ts, which re-exports both.
 */
import { existsSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Env } from './env.js';

/** Repository root (the folder holding package.json), from this file's location in dist/ or the sources. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'migrations'))) return dir;
    dir = dirname(dir);
  }
  return process.cwd();
}

/** The OS app-data folder for the product (default data directory). */
export function defaultDataDir(env: Env): string {
  const home = homedir();
  switch (platform()) {
    case 'darwin': return join(home, 'Library', 'Application Support', 'svc-workstation');
    case 'win32': return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'svc-workstation');
    default: return join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'svc-workstation');
  }
}
