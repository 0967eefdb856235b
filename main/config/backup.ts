/**
 * Where backups live (issue 19 item 2): `SVC_BACKUP_DIR`, default `<dataDir>-backups`, a sibling of
 * the data directory (so wiping the data directory keeps the backups). Read before `loadStackConfig`
 * by the startup restore step (main/restore-step.ts), and by it for the gateway's slice.
 */
import { dirname, join, resolve, basename } from 'node:path';
import { str, type Env } from './env.js';

/** The backup folder for `dataDir` under `env`. */
export function backupDirOf(env: Env, dataDir: string): string {
  const set = str(env, 'SVC_BACKUP_DIR');
  return set ? resolve(set) : join(dirname(dataDir), `${basename(dataDir)}-backups`);
}

/** The data and backup folders the startup restore step works on. */
export async function restorePaths(env: Env): Promise<{ dataDir: string; backupDir: string }> {
  const { defaultDataDir } = await import('./index.js');
  const dataDir = resolve(str(env, 'SVC_DATA_DIR') || defaultDataDir(env));
  return { dataDir, backupDir: backupDirOf(env, dataDir) };
}

/**
 * Whether the backup schedule's sealing key may live in the OS keychain: not when
 * `SVC_SECRET_STORE=file` asks every secret to stay in files (then a 0600 key file in `<dataDir>/secrets/`).
 */
export function backupKeychainWanted(env: Env): boolean {
  return (str(env, 'SVC_SECRET_STORE') ?? '').toLowerCase() !== 'file';
}
