/**
 * The backup schedule kept across restarts (issue 19 item 2, gap 3): the schedule and its passphrase
 * are sealed with AES-256-GCM under a local 32-byte key into `<dataDir>/secrets/backup-schedule.sealed`
 * (0600). The key lives in the OS keychain (service `svc-workstation.gateway`, account
 * `backup-schedule-key`) where one answers, else in `<dataDir>/secrets/backup-schedule.key` (0600).
 * Nothing here logs the passphrase or the key; a sealed file that does not open (key gone, file
 * changed) is treated as no schedule.
 *
 * Issue 21 item 1: where the sealed box lives is a `ScheduleBox`; with `cfg.database` set it is the
 * gateway's PostgreSQL row (store/pg/backup-schedule.ts) instead of the file. The key stays where it was.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openKeychain } from '../../../../native/keychain.js';
import type { PersistedSchedule, SchedulePort } from '../domain/backups.js';

/** Keychain service and account of the sealing key. */
export const SCHEDULE_KEYCHAIN = { service: 'svc-workstation.gateway', account: 'backup-schedule-key' } as const;

/** Files under `<dataDir>/secrets/`. */
export const SCHEDULE_FILES = { sealed: 'backup-schedule.sealed', key: 'backup-schedule.key' } as const;

const AAD = Buffer.from('svc-backup-schedule/v1');

async function writePrivate(file: string, data: string): Promise<void> {
  await writeFile(`${file}.tmp`, data, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}

/** Where the sealed box (JSON text) is kept: `<dataDir>/secrets/backup-schedule.sealed`, or a database row. */
export interface ScheduleBox {
  /** The sealed box, or null when none is kept. */
  read(): Promise<string | null>;
  /** Keep `box`, or forget it (null). */
  write(box: string | null): Promise<void>;
}

/** The file box `<dir>/backup-schedule.sealed` (0600, written atomically). */
export function fileScheduleBox(dir: string): ScheduleBox {
  const sealedFile = join(dir, SCHEDULE_FILES.sealed);
  return {
    async read() { return existsSync(sealedFile) ? readFile(sealedFile, 'utf8') : null; },
    async write(box) {
      if (box === null) { await rm(sealedFile, { force: true }); return; }
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writePrivate(sealedFile, box);
    },
  };
}

/**
 * The sealed schedule port over `dataDir`; `useKeychain` false skips the keychain (tests,
 * `SVC_SECRET_STORE=file`); `box` is where the sealed schedule is kept (default: the file).
 */
export function sealedSchedule(dataDir: string, useKeychain = true, box?: ScheduleBox): SchedulePort & { keyHome(): Promise<'keychain' | 'file'> } {
  const dir = join(dataDir, 'secrets');
  let keyPromise: Promise<{ key: Buffer; home: 'keychain' | 'file' }> | null = null;
  const key = (): Promise<{ key: Buffer; home: 'keychain' | 'file' }> => (keyPromise ??= (async () => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const chain = useKeychain ? await openKeychain(SCHEDULE_KEYCHAIN.service).catch(() => null) : null;
    if (chain) {
      const have = await chain.get(SCHEDULE_KEYCHAIN.account);
      if (have) return { key: Buffer.from(have, 'base64'), home: 'keychain' as const };
      const k = randomBytes(32);
      await chain.set(SCHEDULE_KEYCHAIN.account, k.toString('base64'));
      return { key: k, home: 'keychain' as const };
    }
    const f = join(dir, SCHEDULE_FILES.key);
    if (existsSync(f)) return { key: Buffer.from((await readFile(f, 'utf8')).trim(), 'base64'), home: 'file' as const };
    const k = randomBytes(32);
    await writePrivate(f, k.toString('base64'));
    return { key: k, home: 'file' as const };
  })());
  const store = box ?? fileScheduleBox(dir);
  return {
    async keyHome() { return (await key()).home; },
    async load() {
      const text = await store.read();
      if (text === null) return null;
      try {
        const { key: k } = await key();
        const box = JSON.parse(text) as { iv: string; tag: string; ct: string };
        const d = createDecipheriv('aes-256-gcm', k, Buffer.from(box.iv, 'base64'));
        d.setAAD(AAD);
        d.setAuthTag(Buffer.from(box.tag, 'base64'));
        const clear = Buffer.concat([d.update(Buffer.from(box.ct, 'base64')), d.final()]);
        const s = JSON.parse(clear.toString('utf8')) as PersistedSchedule;
        return typeof s.intervalHours === 'number' && typeof s.passphrase === 'string' ? s : null;
      } catch { return null; }
    },
    async save(s) {
      if (!s) { await store.write(null); return; }
      const { key: k } = await key();
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', k, iv);
      c.setAAD(AAD);
      const ct = Buffer.concat([c.update(JSON.stringify(s), 'utf8'), c.final()]);
      await store.write(JSON.stringify({ v: 1, alg: 'A256GCM', iv: iv.toString('base64'), tag: c.getAuthTag().toString('base64'), ct: ct.toString('base64') }));
    },
  };
}
