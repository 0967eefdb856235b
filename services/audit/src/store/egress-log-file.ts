/**
 * Squid's access log as the egress shipper reads it (issue 19 item 6): the file at `path` and its
 * rotated siblings (`<name>.*` in the same folder), found by device + inode.
 */
import { closeSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { AccessLogSource, FileId } from '../domain/egress-shipper.js';

/** `AccessLogSource` over the file `path`. */
export function accessLogFile(path: string): AccessLogSource {
  const dir = dirname(path);
  const name = basename(path);
  const idOf = (p: string): (FileId & { size: number }) | null => {
    try { const s = statSync(p, { bigint: true }); return { dev: String(s.dev), ino: String(s.ino), size: Number(s.size) }; } catch { return null; }
  };
  const find = (id: FileId): string | null => {
    const cur = idOf(path);
    if (cur && cur.dev === id.dev && cur.ino === id.ino) return path;
    let names: string[] = [];
    try { names = readdirSync(dir); } catch { return null; }
    for (const n of names) {
      if (!n.startsWith(`${name}.`)) continue;
      const s = idOf(join(dir, n));
      if (s && s.dev === id.dev && s.ino === id.ino) return join(dir, n);
    }
    return null;
  };
  return {
    current: () => idOf(path),
    sizeOf: (id) => { const p = find(id); return p ? idOf(p)?.size ?? null : null; },
    read: (id, offset, max) => {
      const p = find(id);
      if (!p) return Buffer.alloc(0);
      const fd = openSync(p, 'r');
      try {
        const buf = Buffer.alloc(max);
        const n = readSync(fd, buf, 0, max, offset);
        return buf.subarray(0, n);
      } finally { closeSync(fd); }
    },
  };
}
