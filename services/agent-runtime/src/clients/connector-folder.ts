/**
 * The folder connector's source (issue 18 item 3): files under `config.path` on the workstation
 * whose extension knowledge parses (Markdown, text, CSV, HTML, PDF, DOCX), hidden entries skipped.
 * An item is a file by its relative path with size and mtime (ms); its content hash (sha256) is
 * taken when it is read. Surfaces are the top-level sub-folders plus `.` (files at the top).
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { ConnectorCheck, Surface } from '../contracts/connectors.js';
import type { ConnectorSource, FetchedItem, SourceItem } from '../domain/connectors/ports.js';

/** Extensions the folder connector syncs. */
export const FOLDER_EXTENSIONS = ['.md', '.markdown', '.txt', '.csv', '.html', '.htm', '.pdf', '.docx'];

const wanted = (name: string): boolean => FOLDER_EXTENSIONS.some((e) => name.toLowerCase().endsWith(e));
const topOf = (rel: string): string => (rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : '.');

/** A folder source over `root`. */
export class FolderSource implements ConnectorSource {
  readonly immutable = false;

  constructor(private readonly root: string) {}

  private async walk(): Promise<SourceItem[]> {
    const out: SourceItem[] = [];
    const visit = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true });
      for (const e of entries) {
        if (e.name.startsWith('.')) continue;
        const full = join(dir, e.name);
        if (e.isDirectory()) await visit(full);
        else if (e.isFile() && wanted(e.name)) {
          const st = await stat(full).catch(() => null);
          if (st) out.push({ key: relative(this.root, full).split(sep).join('/'), size: st.size, mtime_ms: Math.floor(st.mtimeMs) });
        }
      }
    };
    await visit(this.root);
    return out.sort((a, b) => (a.key < b.key ? -1 : 1));
  }

  async check(): Promise<ConnectorCheck> {
    try {
      const st = await stat(this.root);
      if (!st.isDirectory()) return { ok: false, error: 'the path is not a folder', detail: this.root };
      const items = await this.walk();
      return { ok: true, detail: `${items.length} file(s) to sync under ${this.root}` };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return { ok: false, error: code === 'ENOENT' ? 'the folder does not exist' : code === 'EACCES' ? 'the folder cannot be read (permission denied)' : (err as Error).message, detail: this.root };
    }
  }

  async surfaces(selected: string[] | null): Promise<Surface[]> {
    const items = await this.walk();
    const counts = new Map<string, number>([['.', 0]]);
    for (const e of await readdir(this.root, { withFileTypes: true })) if (e.isDirectory() && !e.name.startsWith('.')) counts.set(e.name, 0);
    for (const i of items) counts.set(topOf(i.key), (counts.get(topOf(i.key)) ?? 0) + 1);
    return [...counts].map(([id, n]) => ({ id, name: id === '.' ? '(top level)' : id, kind: 'folder' as const, selected: !selected || selected.includes(id), items: n }));
  }

  async list(selected: string[] | null): Promise<SourceItem[]> {
    const items = await this.walk();
    return selected ? items.filter((i) => selected.includes(topOf(i.key))) : items;
  }

  async fetch(item: SourceItem): Promise<FetchedItem | null> {
    let data: Buffer;
    try { data = await readFile(join(this.root, ...item.key.split('/'))); } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const name = item.key.slice(item.key.lastIndexOf('/') + 1);
    return { sha256: createHash('sha256').update(data).digest('hex'), parts: [{ path_or_uid: item.key, filename: name, title: name.replace(/\.[A-Za-z0-9]+$/, ''), data }] };
  }

  async close(): Promise<void> { /* nothing held */ }
}
