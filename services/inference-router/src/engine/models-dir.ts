/**
 * Discovery of local models: every `<modelsDir>/llm/*.gguf` is a model of provider `local`, id = file
 * name without `.gguf` (DESIGN.md). Weight hashes (sha256 of the file) are computed once per
 * (size, mtime) and cached.
 */
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalModelFile, WeightHashes } from '../domain/ports.js';

export type { LocalModelFile } from '../domain/ports.js';

/** List the GGUF files of `<modelsDir>/llm/` (none when the folder is absent), sorted by id. */
export function scanModels(modelsDir: string): LocalModelFile[] {
  const dir = join(modelsDir, 'llm');
  let names: string[];
  try { names = readdirSync(dir); } catch { return []; }
  const out: LocalModelFile[] = [];
  for (const n of names) {
    if (!n.toLowerCase().endsWith('.gguf') || n.startsWith('.')) continue;
    const path = join(dir, n);
    try {
      const st = statSync(path);
      if (st.isFile()) out.push({ id: n.slice(0, -'.gguf'.length), path, size: st.size, mtimeMs: st.mtimeMs });
    } catch { /* vanished */ }
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/** sha256 hex of files, cached by path + size + mtime. */
export class WeightHasher implements WeightHashes {
  private readonly cache = new Map<string, { key: string; hash: Promise<string> }>();
  private readonly done = new Map<string, string>();

  /** The hash of `f` (computed once, streamed, off the hot path). */
  hash(f: LocalModelFile): Promise<string> {
    const key = `${f.size}:${f.mtimeMs}`;
    const hit = this.cache.get(f.path);
    if (hit && hit.key === key) return hit.hash;
    this.done.delete(f.path);
    const hash = new Promise<string>((resolve, reject) => {
      const h = createHash('sha256');
      createReadStream(f.path).on('data', (c) => h.update(c)).on('error', reject).on('end', () => resolve(h.digest('hex')));
    });
    hash.then((v) => { this.done.set(f.path, v); }, () => { this.cache.delete(f.path); });
    this.cache.set(f.path, { key, hash });
    return hash;
  }

  /** The hash if already computed, else null (never waits). */
  peek(path: string): string | null {
    return this.done.get(path) ?? null;
  }
}
