/** The installer-handoff file `<data dir>/installer-handoff.json` (`{handoff_id, created_at}`, mode 0600). */
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { HandoffFile } from '../domain/ports.js';

/** File-system implementation of `HandoffFile`. */
export class FsHandoffFile implements HandoffFile {
  /** @param path absolute path of the file. */
  constructor(private readonly path: string) {}

  write(doc: { handoff_id: string; created_at: string }): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.path);
  }

  exists(): boolean { return existsSync(this.path); }

  remove(): void { rmSync(this.path, { force: true }); }
}
