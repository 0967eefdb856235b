/**
 * The startup restore step (issue 19 item 2): when the gateway staged a restore
 * (`<backupDir>/restore-pending.json` + `<backupDir>/restore-pending/`), apply it before the
 * configuration is loaded and before any service opens a store: the current data directory is
 * moved aside to `<dataDir>.replaced-<timestamp>` (kept, the way back), the staged `data/` takes its
 * place, and the backup's OS keychain entries are written back. Runs in main/headless.ts and the
 * Electron main before `loadStackConfig`.
 */
import { existsSync, readFileSync, renameSync, rmSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { restorePaths } from './config/backup.js';
import type { Env } from './config/env.js';
import { RESTORE_PENDING_DIR, RESTORE_PENDING_FILE } from '../services/gateway/src/routes/backups.js';
import { writeKeychains, type KeychainDump } from '../services/gateway/src/store/backup-files.js';

/** What the step did: null when nothing was staged. */
export interface RestoreApplied { id: string; replacedDir: string | null; keychainEntries: number }

/**
 * Apply a staged restore, if any.
 * @throws Error when the staged folder is incomplete (the marker stays; nothing was moved).
 */
export async function applyPendingRestore(env: Env = process.env): Promise<RestoreApplied | null> {
  const { dataDir, backupDir } = await restorePaths(env);
  const marker = join(backupDir, RESTORE_PENDING_FILE);
  if (!existsSync(marker)) return null;
  const { id } = JSON.parse(readFileSync(marker, 'utf8')) as { id: string };
  const staged = join(backupDir, RESTORE_PENDING_DIR);
  if (!existsSync(join(staged, 'data'))) throw new Error(`restore of ${id} is staged but ${staged}/data is missing`);
  let replacedDir: string | null = null;
  if (existsSync(dataDir)) {
    replacedDir = `${dataDir}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    renameSync(dataDir, replacedDir);
  }
  try {
    renameSync(join(staged, 'data'), dataDir);
  } catch {
    cpSync(join(staged, 'data'), dataDir, { recursive: true });
  }
  let keychainEntries = 0;
  const kc = join(staged, 'keychain.json');
  if (existsSync(kc)) keychainEntries = await writeKeychains(JSON.parse(readFileSync(kc, 'utf8')) as KeychainDump);
  rmSync(staged, { recursive: true, force: true });
  rmSync(marker, { force: true });
  return { id, replacedDir, keychainEntries };
}
