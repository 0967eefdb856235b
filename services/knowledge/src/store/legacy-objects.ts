/**
 * Migration of knowledge's original uploads from the layout it used before the shared object
 * store (`<objectsDir>/<first two hex>/<64 hex>`) to the one layout of
 * services/shared/objects/object-store.ts (`<objectsDir>/sha256/<first two hex>/<62 hex>`).
 *
 * Runs at start, before the service answers. Idempotent and crash-safe: each blob is written to
 * its new place (temp file, then rename) before the old file is removed, so a crash at any point
 * leaves every blob readable in one layout or both, and the next start finishes the move. A file
 * whose bytes do not hash to its name is left where it is (and reported): the content-addressed
 * store never holds bytes under another digest.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { ObjectStore } from '../../../shared/objects/object-store.js';

const PREFIX = /^[0-9a-f]{2}$/;
const DIGEST = /^[0-9a-f]{64}$/;
/** Temp files of the old writer: `<64 hex>.<pid>.<ms>.tmp`. */
const OLD_TEMP = /^[0-9a-f]{64}\.\d+\.\d+\.tmp$/;

/** What a migration did. */
export interface LegacyMigration {
  /** Blobs now in the shared layout whose old file was removed. */
  moved: number;
  /** Old files left in place because their bytes do not match their name. */
  mismatched: string[];
  /** Interrupted temp files of the old writer that were removed. */
  staleTemps: number;
}

/**
 * Move every blob of the old knowledge layout under `objects.objectsDir` into `objects`.
 * @returns counts, and the old paths left in place.
 */
export function migrateLegacyObjects(objects: ObjectStore): LegacyMigration {
  const out: LegacyMigration = { moved: 0, mismatched: [], staleTemps: 0 };
  const root = objects.objectsDir;
  let dirs: string[];
  try {
    dirs = readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory() && PREFIX.test(e.name)).map((e) => e.name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
  }
  for (const prefix of dirs) {
    const dir = join(root, prefix);
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isFile()) continue;
      const path = join(dir, e.name);
      if (OLD_TEMP.test(e.name)) {
        unlinkSync(path);
        out.staleTemps++;
        continue;
      }
      if (!DIGEST.test(e.name) || !e.name.startsWith(prefix)) continue;
      const bytes = readFileSync(path);
      if (createHash('sha256').update(bytes).digest('hex') !== e.name) {
        out.mismatched.push(path);
        continue;
      }
      objects.put(bytes);
      unlinkSync(path);
      out.moved++;
    }
    try { rmdirSync(dir); } catch { /* not empty: files this migration does not own */ }
  }
  return out;
}
