/** Content-addressed blobs under `<dataDir>/objects/<aa>/<sha256>` (DESIGN.md "Process model"). */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The object folder. */
export class ObjectStore {
  constructor(private readonly dir: string) {}

  private pathOf(sha: string): string { return join(this.dir, sha.slice(0, 2), sha); }

  /** Store `data`; returns its sha256 (hex). Writing the same bytes twice is a no-op. */
  put(data: Buffer): string {
    const sha = createHash('sha256').update(data).digest('hex');
    const p = this.pathOf(sha);
    if (!existsSync(p)) {
      mkdirSync(join(this.dir, sha.slice(0, 2)), { recursive: true });
      const tmp = `${p}.${process.pid}.${Date.now()}.tmp`;
      writeFileSync(tmp, data);
      renameSync(tmp, p);
    }
    return sha;
  }

  /** The bytes, or null when absent. */
  get(sha: string): Buffer | null {
    if (!/^[0-9a-f]{64}$/.test(sha)) return null;
    const p = this.pathOf(sha);
    return existsSync(p) ? readFileSync(p) : null;
  }
}
