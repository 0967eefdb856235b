/**
 * The backup store (issue 19 item 2): SQLite snapshots, the data directory's files, the OS keychain
 * entries and the encrypted archive files under `SVC_BACKUP_DIR`.
 *
 * Consistency: `snapshotStores` holds every store's write lock while it opens a read transaction on
 * each (one point in time across stores, see its comment), then copies each file with SQLite's online backup API
 * (better-sqlite3 `db.backup`) inside that transaction: backup_step uses the connection's open read
 * transaction (it begins one only when none is open), so every copy is the snapshot taken at the
 * cut while the services keep writing, and no turn is held back.
 *
 * Archive entries: `data/<path>` (files of the data directory; `data/db/<store>.sqlite` are the
 * snapshots), `keychain.json` (`KeychainDump`). Nothing here logs a key or a passphrase.
 */
import Database from 'better-sqlite3';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, open, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { openKeychain } from '../../../../native/keychain.js';
import {
  CHUNK_BYTES, encodeEntryHead, headerBytes, openChunk, parseHeader, safeEntryName, sealChunk, tampered, unlock, type BackupHeader,
} from '../domain/backup-archive.js';

/** Keychain entries of the services that keep keys there: service -> account -> secret. */
export type KeychainDump = Record<string, Record<string, string>>;

/** Pages copied per backup step (4 MiB at 4 KiB pages): bounds how long one step holds the gateway's event loop. */
const PAGES_PER_STEP = 1024;

/** Folders of the data directory not archived: live store files (snapshotted instead) and logs. */
const SKIP_TOP = new Set(['db', 'logs', 'tmp']);

/** What `snapshotStores` did: the store files copied and how long writers were held at the cut. */
export interface StoreSnapshot { names: string[]; writePauseMs: number }

/** How long the cut waits for one store's write lock before giving up, ms (writers wait within their busy_timeout). */
const CUT_LOCK_TIMEOUT_MS = 5000;

/**
 * Copy every `<dbDir>/*.sqlite` into `outDir` at one point in time (issue 19 item 4 of the gaps):
 *
 * 1. a side connection per store takes the store's write lock (`BEGIN IMMEDIATE`), in name order,
 *    so from the last lock on no write can commit to any store;
 * 2. with every write lock held, a read transaction opens on each store (its WAL snapshot), which is
 *    therefore the same instant for all of them;
 * 3. the write locks are released (`ROLLBACK`); writers that arrived meanwhile waited inside their
 *    own busy_timeout, for `writePauseMs` at most;
 * 4. each file is copied with the online backup API inside its read transaction (the snapshot).
 * Lock order is fixed and no writer holds two stores' locks, so the cut cannot deadlock.
 * `onStep` runs between backup steps and may throw to abandon the copy (a cancelled backup job).
 * @throws DomainError `backup_busy` when a store's write lock is not free within CUT_LOCK_TIMEOUT_MS.
 */
export async function snapshotStores(dbDir: string, outDir: string, onStep?: () => void): Promise<StoreSnapshot> {
  await mkdir(outDir, { recursive: true });
  const names = existsSync(dbDir) ? (await readdir(dbDir)).filter((n) => n.endsWith('.sqlite')).sort() : [];
  const dbs = names.map((n) => new Database(join(dbDir, n), { readonly: true, fileMustExist: true }));
  const lockers = names.map((n) => new Database(join(dbDir, n), { fileMustExist: true }));
  let writePauseMs = 0;
  try {
    for (const db of dbs) db.pragma('busy_timeout = 5000');
    for (const l of lockers) l.pragma(`busy_timeout = ${CUT_LOCK_TIMEOUT_MS}`);
    const t0 = performance.now();
    try {
      for (const l of lockers) {
        try { l.prepare('BEGIN IMMEDIATE').run(); } catch (err) {
          throw new DomainError('backup_busy', `a store stayed locked for writing; try again (${err instanceof Error ? err.message : String(err)})`);
        }
      }
      for (const db of dbs) { db.prepare('BEGIN').run(); db.prepare('SELECT count(*) FROM sqlite_master').get(); }
    } finally {
      for (const l of lockers) if (l.inTransaction) l.prepare('ROLLBACK').run();
      writePauseMs = performance.now() - t0;
    }
    for (let i = 0; i < dbs.length; i++) {
      // Steps of PAGES_PER_STEP pages, the event loop served between them; the held read
      // transaction keeps every step on the snapshot of the cut (no restart on concurrent writes).
      await dbs[i]!.backup(join(outDir, names[i]!), { progress: () => { onStep?.(); return PAGES_PER_STEP; } });
    }
  } finally {
    for (const l of lockers) l.close();
    for (const db of dbs) {
      if (db.inTransaction) db.prepare('COMMIT').run();
      db.close();
    }
  }
  return { names, writePauseMs };
}

/** Every regular file under `dataDir` except `SKIP_TOP` folders, SQLite side files and `.tmp`/`.part` files in flight, as relative `/` paths. */
export async function dataFiles(dataDir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      const rel = relative(dataDir, p).split(sep).join('/');
      if (dir === dataDir && SKIP_TOP.has(e.name)) continue;
      if (e.isDirectory()) await walk(p);
      else if (e.isFile() && !/\.sqlite(-wal|-shm|-journal)?$/.test(e.name) && !/\.(tmp|part)$/.test(e.name)) out.push(rel);
    }
  };
  if (existsSync(dataDir)) await walk(dataDir);
  return out.sort();
}

/** Read the keychain entries of `services` (those whose keychain answers). Never logs values. */
export async function readKeychains(services: readonly string[]): Promise<KeychainDump> {
  const out: KeychainDump = {};
  for (const s of services) {
    const chain = await openKeychain(s).catch(() => null);
    if (!chain) continue;
    const all = await chain.list();
    if (all.length) out[s] = Object.fromEntries(all.map((c) => [c.account, c.password]));
  }
  return out;
}

/** Write entries back into the OS keychain (restore on start). @returns entries written. */
export async function writeKeychains(dump: KeychainDump): Promise<number> {
  let n = 0;
  for (const [s, entries] of Object.entries(dump)) {
    const chain = await openKeychain(s).catch(() => null);
    if (!chain) continue;
    for (const [account, value] of Object.entries(entries)) { await chain.set(account, value); n++; }
  }
  return n;
}

/** One archive entry: its name and where its bytes come from. */
export type ArchiveSource = { name: string; file: string } | { name: string; bytes: Buffer };

/**
 * Write the encrypted archive to `file` (via `file.part`, renamed when complete). `onBytes` sees the
 * archive bytes written so far and may throw to abandon it (the part file is removed).
 * @returns the archive's size, bytes.
 */
export async function writeArchive(file: string, header: BackupHeader, key: Buffer, sources: readonly ArchiveSource[], onBytes?: (written: number) => void): Promise<number> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const part = `${file}.part`;
  const out = createWriteStream(part, { mode: 0o600 });
  let written = 0;
  const write = async (b: Buffer): Promise<void> => { written += b.length; onBytes?.(written); if (!out.write(b)) await once(out, 'drain'); };
  let pending: Buffer[] = [];
  let pendingLen = 0;
  let index = 0;
  const flush = async (last: boolean): Promise<void> => {
    while (pendingLen >= CHUNK_BYTES || (last && pendingLen >= 0)) {
      const all = Buffer.concat(pending, pendingLen);
      const take = Math.min(CHUNK_BYTES, all.length);
      const isLast = last && take === all.length;
      await write(sealChunk(key, header, index++, all.subarray(0, take), isLast));
      pending = [all.subarray(take)];
      pendingLen = all.length - take;
      if (isLast) return;
    }
  };
  const push = async (b: Buffer): Promise<void> => {
    pending.push(b);
    pendingLen += b.length;
    if (pendingLen >= CHUNK_BYTES) await flush(false);
  };
  try {
    await write(headerBytes(header));
    for (const s of sources) {
      if ('bytes' in s) {
        await push(encodeEntryHead(s.name, s.bytes.length));
        await push(s.bytes);
        continue;
      }
      // A file removed since the listing (a replaced temporary object) is left out.
      const size = await stat(s.file).then((st) => st.size, (err: NodeJS.ErrnoException) => { if (err.code === 'ENOENT') return -1; throw err; });
      if (size < 0) continue;
      await push(encodeEntryHead(s.name, size));
      let seen = 0;
      for await (const c of createReadStream(s.file, { end: size - 1, highWaterMark: 256 * 1024 })) {
        const b = c as Buffer;
        seen += b.length;
        await push(b);
      }
      if (size === 0) continue;
      if (seen !== size) throw new Error(`file ${s.name} changed size while being archived`);
    }
    await flush(true);
    out.end();
    await once(out, 'finish');
  } catch (err) {
    out.destroy();
    await rm(part, { force: true });
    throw err;
  }
  const { rename } = await import('node:fs/promises');
  await rename(part, file);
  return (await stat(file)).size;
}

/** Read the clear header of an archive file. @throws DomainError `archive_tampered` when malformed. */
export async function readHeader(file: string): Promise<{ header: BackupHeader; offset: number }> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return parseHeader(buf.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

/**
 * Decrypt `file` with `passphrase` and write its entries under `outDir` (`data/...` and `keychain.json`).
 * @returns the header and the entry names.
 * @throws DomainError `bad_passphrase` (wrong passphrase) or `archive_tampered` (any frame that does
 *   not authenticate, a missing last frame, a malformed entry).
 */
export async function extractArchive(file: string, passphrase: string, outDir: string): Promise<{ header: BackupHeader; names: string[] }> {
  const { header, offset } = await readHeader(file);
  const key = await unlock(header, passphrase);
  const size = (await stat(file)).size;
  const fh = await open(file, 'r');
  const names: string[] = [];
  let buf: Buffer = Buffer.alloc(0);
  let cur: { name: string; left: number; fh: import('node:fs/promises').FileHandle } | null = null;
  const consume = async (): Promise<void> => {
    for (;;) {
      if (cur) {
        if (cur.left === 0) { await cur.fh.close(); cur = null; continue; }
        if (buf.length === 0) return;
        const take = Math.min(cur.left, buf.length);
        await cur.fh.write(buf.subarray(0, take));
        cur.left -= take;
        buf = buf.subarray(take);
        continue;
      }
      if (buf.length < 4) return;
      const nl = buf.readUInt32BE(0);
      if (nl > 1024) throw tampered();
      if (buf.length < 4 + nl + 8) return;
      const name = buf.subarray(4, 4 + nl).toString('utf8');
      const left = Number(buf.readBigUInt64BE(4 + nl));
      if (!safeEntryName(name)) throw tampered();
      buf = buf.subarray(4 + nl + 8);
      const target = join(outDir, ...name.split('/'));
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      names.push(name);
      cur = { name, left, fh: await open(target, 'w', 0o600) };
    }
  };
  try {
    let pos = offset;
    let index = 0;
    let sawLast = false;
    const lenBuf = Buffer.alloc(4);
    while (pos < size) {
      if ((await fh.read(lenBuf, 0, 4, pos)).bytesRead !== 4) throw tampered();
      const len = lenBuf.readUInt32BE(0);
      if (len > CHUNK_BYTES + 64 || pos + 4 + len > size) throw tampered();
      const body = Buffer.alloc(len);
      if ((await fh.read(body, 0, len, pos + 4)).bytesRead !== len) throw tampered();
      pos += 4 + len;
      sawLast = pos === size;
      const plain = openChunk(key, header, index++, body, sawLast);
      buf = buf.length ? Buffer.concat([buf, plain]) : plain;
      await consume();
    }
    if (!sawLast || buf.length !== 0 || (cur !== null && (cur as { left: number }).left !== 0)) throw tampered();
  } finally {
    const open = cur as { fh: import('node:fs/promises').FileHandle } | null;
    if (open) await open.fh.close().catch(() => undefined);
    await fh.close();
  }
  return { header, names };
}

/** One archive in the backup folder. */
export interface StoredBackup { id: string; created_at: string; bytes: number }

/** The archive file of `id` under `dir`. */
export const archiveFile = (dir: string, id: string): string => join(dir, `${id}.svcbak`);

/** List the archives under `dir`, newest first (unreadable headers are skipped). */
export async function listArchives(dir: string): Promise<StoredBackup[]> {
  if (!existsSync(dir)) return [];
  const out: StoredBackup[] = [];
  for (const n of await readdir(dir)) {
    if (!n.endsWith('.svcbak')) continue;
    const file = join(dir, n);
    try {
      const { header } = await readHeader(file);
      out.push({ id: n.slice(0, -'.svcbak'.length), created_at: header.created_at, bytes: (await stat(file)).size });
    } catch { /* not an archive */ }
  }
  return out.sort((a, b) => b.created_at.localeCompare(a.created_at));
}

/** Write a JSON file (mode 0600). */
export async function writeJson(file: string, value: unknown): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, JSON.stringify(value), { mode: 0o600 });
}
