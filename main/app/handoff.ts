/**
 * The installer handoff as the shell hands it to the renderer: `<data dir>/installer-handoff.json`
 * (`{handoff_id, created_at}`, written by the auth service on a first start without bootstrap
 * admin variables) is read at most once per run; the auth service deletes it when exchanged.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** File name under the data directory (auth contracts `HANDOFF_FILE`). */
export const HANDOFF_FILE = 'installer-handoff.json';

/** A one-shot reader: the first call returns the id (or null), later calls null. */
export function handoffReader(dataDir: string): () => Promise<string | null> {
  let taken = false;
  return async () => {
    if (taken) return null;
    taken = true;
    try {
      const doc = JSON.parse(readFileSync(join(dataDir, HANDOFF_FILE), 'utf8')) as { handoff_id?: unknown };
      return typeof doc.handoff_id === 'string' && /^[0-9a-f-]{36}$/i.test(doc.handoff_id) ? doc.handoff_id : null;
    } catch {
      return null;
    }
  };
}
