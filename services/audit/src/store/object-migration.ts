/**
 * Upgrade of the artifact bodies the audit service wrote with its own object store (before issue
 * 10) to the one shared object store (`services/shared/objects/object-store.ts`).
 *
 * The old audit layout was already the shared one, `<objectsDir>/sha256/<first two hex>/<other 62
 * hex>` with blob files of mode 0600, so every old blob is readable in place and nothing moves.
 * What differs: the old writer created folders with the default mode (0755 under the usual umask)
 * where the shared store uses 0700, and named its temp files `<62 hex>.<uuid>.tmp` beside the blob,
 * which a crash between write and rename could leave behind. `migrateAuditObjects` tightens the
 * folders and removes those abandoned temp files. It runs at every start and is idempotent (once the
 * layout root is 0700 a start does no more than one stat); it
 * never touches blobs, other files, or temp files of the shared store (`.tmp-<pid>-...`).
 */
import { chmodSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { OBJECT_LAYOUT_ROOT } from '../../../shared/objects/object-store.js';

/** Folders of the layout: two lowercase hex digits. */
const FOLDER = /^[0-9a-f]{2}$/;
/** A temp file of the old audit writer: `<62 hex>.<uuid v4>.tmp`. */
const OLD_TEMP = /^[0-9a-f]{62}\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/;
/** Folder mode of the shared object store. */
const FOLDER_MODE = 0o700;

/** What a migration run changed. */
export interface ObjectMigrationReport {
  /** Folders whose mode was tightened to 0700. */
  foldersTightened: number;
  /** Abandoned temp files of the old writer removed. */
  tempsRemoved: number;
}

/**
 * Bring audit blobs of the old audit layout under the shared store's rules (see the file header).
 * @returns what changed (all zero on a second run). A missing objects folder is fine (nothing to do).
 */
export function migrateAuditObjects(objectsDir: string): ObjectMigrationReport {
  const report: ObjectMigrationReport = { foldersTightened: 0, tempsRemoved: 0 };
  const root = join(objectsDir, OBJECT_LAYOUT_ROOT);
  if (!existsSync(root)) return report;
  const tighten = (dir: string): void => {
    if ((statSync(dir).mode & 0o777) !== FOLDER_MODE) {
      chmodSync(dir, FOLDER_MODE);
      report.foldersTightened++;
    }
  };
  // The root is tightened last, so a root already at 0700 means a run finished (or the shared store
  // made the layout, with no old temp files in it): starts then skip listing every blob folder.
  if ((statSync(root).mode & 0o777) === FOLDER_MODE) return report;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || !FOLDER.test(entry.name)) continue;
    const dir = join(root, entry.name);
    tighten(dir);
    for (const name of readdirSync(dir)) {
      if (!OLD_TEMP.test(name)) continue;
      rmSync(join(dir, name), { force: true });
      report.tempsRemoved++;
    }
  }
  tighten(root);
  return report;
}
