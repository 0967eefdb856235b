/**
 * Content-addressed blob store under `<objectsDir>/sha256/<first two hex>/<rest>` (DESIGN.md
 * "Process model": `objects/`). Writes go to a temp file then rename, so a blob is either whole or
 * absent; identical content is stored once.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, renameSync, statSync, writeFileSync, type ReadStream } from 'node:fs';
import { join } from 'node:path';

const SHA = /^[0-9a-f]{64}$/;

/** Blob store rooted at `objectsDir`. */
export class ObjectStore {
  constructor(private readonly objectsDir: string) {}

  private pathOf(sha256: string): string {
    if (!SHA.test(sha256)) throw new TypeError('not a sha256 hex digest');
    return join(this.objectsDir, 'sha256', sha256.slice(0, 2), sha256.slice(2));
  }

  /** Store `bytes`. @returns sha256 (lowercase hex) and size in bytes. */
  put(bytes: Uint8Array): { sha256: string; size: number } {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const path = this.pathOf(sha256);
    if (!existsSync(path)) {
      mkdirSync(join(this.objectsDir, 'sha256', sha256.slice(0, 2)), { recursive: true });
      const tmp = `${path}.${randomUUID()}.tmp`;
      writeFileSync(tmp, bytes, { mode: 0o600 });
      renameSync(tmp, path);
    }
    return { sha256, size: bytes.length };
  }

  /** Whether a blob is present. */
  has(sha256: string): boolean {
    return existsSync(this.pathOf(sha256));
  }

  /** A read stream of the blob, or null when absent. */
  open(sha256: string): { stream: ReadStream; size: number } | null {
    const path = this.pathOf(sha256);
    if (!existsSync(path)) return null;
    return { stream: createReadStream(path), size: statSync(path).size };
  }
}
