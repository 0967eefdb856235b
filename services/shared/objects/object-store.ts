/**
 * The one object store of the stack (DESIGN.md "Process model": `<data dir>/objects/`; issue 10
 * "One object store"): content-addressed blobs used by audit (artifact bodies) and knowledge
 * (original uploads).
 *
 * Layout (one for every user): `<objectsDir>/sha256/<first two hex>/<remaining 62 hex>`, e.g. the
 * blob `ab12…ef` lives at `objects/sha256/ab/12…ef`. Digests are lowercase hex sha256 of the bytes;
 * identical content is stored once. Blob files are mode 0600, folders 0700.
 *
 * Writes go to a temp file in the blob's own folder with a name unique per process and thread
 * (`.tmp-<pid>-<threadId>-<random>`) and are then renamed into place, so a blob is either whole
 * or absent, and two writers (processes, worker threads, concurrent calls) never share a temp
 * file. Folder creation is recursive and tolerates a concurrent creator; folders are never
 * removed, so a concurrent `put` cannot lose the folder it is writing into.
 *
 * The API is stable: `put`, `putStream`, `get`, `open`, `has`, `size`, `delete`, `pathOf`,
 * `isSha256Hex`. It takes digests, never paths, from callers; an invalid digest never touches the
 * file system (`get`/`open`/`has`/`size`/`delete` answer "absent", `pathOf` throws).
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  createReadStream, createWriteStream, mkdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync,
  type ReadStream,
} from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { threadId } from 'node:worker_threads';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The folder, under the objects folder, that holds sha256-addressed blobs. */
export const OBJECT_LAYOUT_ROOT = 'sha256';

/** What a write returns: the blob's lowercase hex sha256 and its size in bytes. */
export interface ObjectRef {
  sha256: string;
  size: number;
}

/** True when `s` is a lowercase hex sha256 digest (64 characters). */
export function isSha256Hex(s: unknown): s is string {
  return typeof s === 'string' && SHA256_HEX.test(s);
}

/** A temp file name unique to this process, thread and call (never a valid digest). */
function tempName(): string {
  return `.tmp-${process.pid}-${threadId}-${randomBytes(8).toString('hex')}`;
}

/** Content-addressed blob store rooted at `objectsDir` (`<data dir>/objects`). */
export class ObjectStore {
  /** @param objectsDir the objects folder; created on first write. */
  constructor(readonly objectsDir: string) {}

  /**
   * The file path of blob `sha256` (whether or not it exists).
   * @throws TypeError when `sha256` is not a lowercase hex sha256 digest.
   */
  pathOf(sha256: string): string {
    if (!isSha256Hex(sha256)) throw new TypeError('not a sha256 hex digest');
    return join(this.objectsDir, OBJECT_LAYOUT_ROOT, sha256.slice(0, 2), sha256.slice(2));
  }

  /** The folder blob `sha256` lives in, created (0700) if absent; safe under concurrency. */
  private folderOf(sha256: string): string {
    const dir = join(this.objectsDir, OBJECT_LAYOUT_ROOT, sha256.slice(0, 2));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /**
   * Store `bytes` (no-op when the blob is already present).
   * @returns its sha256 and size in bytes.
   */
  put(bytes: Uint8Array): ObjectRef {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const path = this.pathOf(sha256);
    if (!this.has(sha256)) {
      const tmp = join(this.folderOf(sha256), tempName());
      try {
        writeFileSync(tmp, bytes, { mode: 0o600, flag: 'wx' });
        renameSync(tmp, path);
      } catch (err) {
        rmSync(tmp, { force: true });
        throw err;
      }
    }
    return { sha256, size: bytes.length };
  }

  /**
   * Store the bytes of a stream without holding them in memory (no-op when already present).
   * The stream is hashed while it is written to a temp file, which is then renamed into place.
   * @returns its sha256 and size in bytes. @throws the stream's or the file system's error (the
   * temp file is removed).
   */
  async putStream(source: Readable | AsyncIterable<Uint8Array>): Promise<ObjectRef> {
    mkdirSync(join(this.objectsDir, OBJECT_LAYOUT_ROOT), { recursive: true, mode: 0o700 });
    // The digest is known only at the end, so stage under the layout root, then rename.
    const tmp = join(this.objectsDir, OBJECT_LAYOUT_ROOT, tempName());
    const hash = createHash('sha256');
    let size = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    const sink = createWriteStream(tmp, { mode: 0o600, flags: 'wx' });
    try {
      await pipeline(source, tap, sink);
      const sha256 = hash.digest('hex');
      if (this.has(sha256)) {
        rmSync(tmp, { force: true });
      } else {
        this.folderOf(sha256);
        renameSync(tmp, this.pathOf(sha256));
      }
      return { sha256, size };
    } catch (err) {
      // The sink may still be opening its file: remove the temp only once it is closed.
      if (!sink.closed) await new Promise<void>((resolve) => { sink.once('close', () => resolve()); });
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  /** The bytes of blob `sha256`, or null when absent (or `sha256` is not a digest). */
  get(sha256: string): Buffer | null {
    if (!isSha256Hex(sha256)) return null;
    try {
      return readFileSync(this.pathOf(sha256));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** A read stream of blob `sha256` and its size in bytes, or null when absent. */
  open(sha256: string): { stream: ReadStream; size: number } | null {
    const size = this.size(sha256);
    if (size === null) return null;
    return { stream: createReadStream(this.pathOf(sha256)), size };
  }

  /** Whether blob `sha256` is present. */
  has(sha256: string): boolean {
    return this.size(sha256) !== null;
  }

  /** The size in bytes of blob `sha256`, or null when absent. */
  size(sha256: string): number | null {
    if (!isSha256Hex(sha256)) return null;
    try {
      const st = statSync(this.pathOf(sha256));
      return st.isFile() ? st.size : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /**
   * Remove blob `sha256` (callers decide when no record references it any more).
   * @returns true when a blob was removed, false when it was absent.
   */
  delete(sha256: string): boolean {
    if (!isSha256Hex(sha256)) return false;
    try {
      unlinkSync(this.pathOf(sha256));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }
}
