/**
 * The egress shipper (issue 19 item 6; spec "Egress events are written by a shipper that tails the
 * forward proxy access log"): reads new complete lines of Squid's access log and appends one audit
 * row each, together with the cursor (file identity + offset) in ONE writer transaction, so a crash
 * or restart neither loses nor duplicates rows. Rotation: when the path names another file, the old
 * file (found by its identity among the rotated names) is drained first, then the new one is read
 * from 0; a file shorter than the cursor (truncated) is read again from 0.
 *
 * Several processes on one database (PostgreSQL, issue 21 item 1): every cursor move runs in a
 * writer job that first checks the stored cursor is still the one this pass read; when another
 * shipper moved it, nothing is written and the pass reads the cursor again (no duplicate rows).
 */
import type { AppendInput } from './chain-row.js';
import { egressRowOf } from './egress-log.js';
import { aw, type Awaitable } from './maybe-async.js';
import type { AuditWriter } from './writer.js';

/** A file's identity (device + inode as decimal strings). */
export interface FileId { dev: string; ino: string }

/** The access log as the shipper reads it (store/egress-log-file.ts). */
export interface AccessLogSource {
  /** Identity and size of the file the path names now, or null when absent. */
  current(): FileId & { size: number } | null;
  /** Size of the file with identity `id` (current or rotated), or null when gone. */
  sizeOf(id: FileId): number | null;
  /** Up to `max` bytes of file `id` from `offset`. */
  read(id: FileId, offset: number, max: number): Buffer;
}

/** The persisted cursor (store/egress-cursor.ts), written inside the writer's transaction. */
export interface EgressCursorStore {
  /** The cursor, or null before the first pass. */
  get(): Awaitable<(FileId & { offset: number }) | null>;
  /** Store the cursor (inside a writer job). */
  set(c: FileId & { offset: number }): Awaitable<void>;
}

type Cursor = FileId & { offset: number };

function sameCursor(a: Cursor | null, b: Cursor | null): boolean {
  return a === null || b === null ? a === b : a.dev === b.dev && a.ino === b.ino && a.offset === b.offset;
}

/** Largest read per pass, bytes. */
const CHUNK = 1 << 20;

/** The shipper; `pass()` ships what is there now. */
export class EgressShipper {
  constructor(private readonly src: AccessLogSource, private readonly cursor: EgressCursorStore, private readonly writer: Pick<AuditWriter, 'run'>, private readonly tenantId: string) {}

  /** Ship every complete line written so far. @returns rows appended. */
  async pass(): Promise<number> {
    let shipped = 0;
    for (;;) {
      const cur = this.src.current();
      const c = await this.cursor.get();
      let target: FileId & { offset: number };
      if (!cur && !c) return shipped;
      if (c && (!cur || cur.dev !== c.dev || cur.ino !== c.ino)) {
        // The path names another file (rotated): drain the old one while it can be found.
        const oldSize = this.src.sizeOf(c);
        if (oldSize !== null && oldSize > c.offset) target = c;
        else if (cur) target = { dev: cur.dev, ino: cur.ino, offset: 0 };
        else return shipped;
      } else if (c && cur) {
        target = { ...c, offset: cur.size < c.offset ? 0 : c.offset };
      } else target = { dev: cur!.dev, ino: cur!.ino, offset: 0 };
      const n = await this.ship(target, c);
      if (n.bytes < 0) continue;
      if (n.bytes === 0 && cur && (target.dev !== cur.dev || target.ino !== cur.ino)) {
        // Old file drained (a trailing partial line is dropped: Squid never completes it): switch.
        const fresh = { dev: cur.dev, ino: cur.ino, offset: 0 };
        await this.setCursor(c, fresh);
        continue;
      }
      if (n.bytes === 0) {
        if (!c || c.dev !== target.dev || c.ino !== target.ino || c.offset !== target.offset) await this.setCursor(c, target);
        if (target.dev === cur?.dev && target.ino === cur.ino) return shipped;
        continue;
      }
      shipped += n.rows;
    }
  }

  /** Move the cursor from `expected` to `next` (nothing when another shipper moved it first). */
  private async setCursor(expected: Cursor | null, next: Cursor): Promise<void> {
    await this.shipJob(expected, [], next);
  }

  /** One writer job: when the stored cursor is still `expected`, append `rows` and store `next`. @returns whether it did. */
  private shipJob(expected: Cursor | null, rows: readonly AppendInput[], next: Cursor): Promise<boolean> {
    const cursor = this.cursor;
    return this.writer.run(this.tenantId, function* (tx) {
      const now = yield* aw(cursor.get());
      if (!sameCursor(now, expected)) return false;
      for (const r of rows) yield* aw(tx.append(r));
      yield* aw(cursor.set(next));
      return true;
    });
  }

  /**
   * Ship complete lines of `t` from its offset (one transaction); `expected` is the cursor the pass read.
   * @returns rows and bytes shipped; bytes -1 when another shipper moved the cursor first.
   */
  private async ship(t: Cursor, expected: Cursor | null): Promise<{ rows: number; bytes: number }> {
    const buf = this.src.read(t, t.offset, CHUNK);
    const end = buf.lastIndexOf(0x0a);
    if (end < 0) return { rows: 0, bytes: 0 };
    const lines = buf.subarray(0, end).toString('utf8').split('\n');
    const rows = lines.map((l) => egressRowOf(l.replace(/\r$/, ''), this.tenantId)).filter((r) => r !== null);
    const next = { dev: t.dev, ino: t.ino, offset: t.offset + end + 1 };
    if (!await this.shipJob(expected, rows, next)) return { rows: 0, bytes: -1 };
    return { rows: rows.length, bytes: end + 1 };
  }
}
