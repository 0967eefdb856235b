/**
 * `GET /v1/admin/stack` (issue 19 item 1): versions of what matters (app, Node, SQLite, sqlite-vec,
 * onnxruntime, llama.cpp through node-llama-cpp, the Docker engine), the model files with their
 * SHA-256 and the sandbox image with its id and digests. Model hashes are cached by (path, size,
 * mtime) in `<dataDir>/updates/model-hashes.json`, so a multi-GiB file is hashed once.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readUpdateState } from '../update/bundle.js';

const require = createRequire(import.meta.url);

/** One model file. */
export interface ModelInfo { service: string; path: string; bytes: number; sha256: string }
/** The answer of `GET /v1/admin/stack`. */
export interface StackInfo {
  app: { version: string; deployed_update: string | null };
  node: string;
  sqlite: string | null;
  sqlite_vec: string | null;
  onnxruntime: string | null;
  node_llama_cpp: string | null;
  llama_cpp: string | null;
  docker: { reachable: boolean; version: string | null; api_version: string | null; error: string | null };
  sandbox_image: { name: string; id: string | null; digests: string[]; present: boolean };
  models: ModelInfo[];
}

/** What stackInfo needs from the configuration. */
export interface StackInfoInput {
  root: string;
  dataDir: string;
  /** Folders that hold model files, by service. */
  modelDirs: Array<{ service: string; dir: string }>;
  sandboxImage: string;
  dockerSocket: string | null;
}

function pkgVersion(root: string, name: string): string | null {
  try { return (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version; } catch { return null; }
}

async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

function listModelFiles(dir: string, depth = 0): string[] {
  if (!existsSync(dir) || depth > 3) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listModelFiles(p, depth + 1));
    else if (/\.(gguf|onnx|bin|safetensors)$/i.test(e.name)) out.push(p);
  }
  return out;
}

async function modelHashes(input: StackInfoInput): Promise<ModelInfo[]> {
  const cacheFile = join(input.dataDir, 'updates', 'model-hashes.json');
  let cache: Record<string, { size: number; mtime: number; sha256: string }> = {};
  try { cache = JSON.parse(readFileSync(cacheFile, 'utf8')) as typeof cache; } catch { /* none yet */ }
  const out: ModelInfo[] = [];
  for (const { service, dir } of input.modelDirs) {
    for (const file of listModelFiles(dir)) {
      const st = statSync(file);
      const hit = cache[file];
      const sha256 = hit && hit.size === st.size && hit.mtime === st.mtimeMs ? hit.sha256 : await sha256File(file);
      cache[file] = { size: st.size, mtime: st.mtimeMs, sha256 };
      out.push({ service, path: file, bytes: st.size, sha256 });
    }
  }
  mkdirSync(dirname(cacheFile), { recursive: true });
  writeFileSync(cacheFile, JSON.stringify(cache));
  return out;
}

function sqliteVersions(): { sqlite: string | null; vec: string | null } {
  try {
    const Database = require('better-sqlite3') as new (f: string) => { prepare(s: string): { pluck(): { get(): unknown } }; close(): void; loadExtension(p: string): void };
    const db = new Database(':memory:');
    try {
      const sqlite = String(db.prepare('select sqlite_version()').pluck().get());
      let vec: string | null = null;
      try {
        const sv = require('sqlite-vec') as { getLoadablePath(): string };
        db.loadExtension(sv.getLoadablePath());
        vec = String(db.prepare('select vec_version()').pluck().get());
      } catch { vec = null; }
      return { sqlite, vec };
    } finally { db.close(); }
  } catch { return { sqlite: null, vec: null }; }
}

async function dockerInfo(input: StackInfoInput): Promise<Pick<StackInfo, 'docker' | 'sandbox_image'>> {
  const image = { name: input.sandboxImage, id: null as string | null, digests: [] as string[], present: false };
  try {
    const Docker = (await import('dockerode')).default;
    const docker = new Docker(input.dockerSocket ? { socketPath: input.dockerSocket, timeout: 3000 } : { timeout: 3000 });
    const v = await docker.version();
    try {
      const img = await docker.getImage(input.sandboxImage).inspect();
      image.id = img.Id; image.digests = img.RepoDigests ?? []; image.present = true;
    } catch { /* image missing */ }
    return { docker: { reachable: true, version: v.Version, api_version: v.ApiVersion, error: null }, sandbox_image: image };
  } catch (err) {
    return { docker: { reachable: false, version: null, api_version: null, error: (err as Error).message.slice(0, 200) }, sandbox_image: image };
  }
}

/** Collect the stack's versions (never throws: what cannot be read is null). */
export async function stackInfo(input: StackInfoInput): Promise<StackInfo> {
  let appVersion = '0.0.0';
  try { appVersion = (JSON.parse(readFileSync(join(input.root, 'package.json'), 'utf8')) as { version: string }).version; } catch { /* keep */ }
  let llama: string | null = null;
  try { llama = (JSON.parse(readFileSync(join(input.root, 'node_modules', 'node-llama-cpp', 'llama', 'llama.cpp.info.json'), 'utf8')) as { tag: string }).tag; } catch { /* absent */ }
  const { sqlite, vec } = sqliteVersions();
  const [d, models] = await Promise.all([dockerInfo(input), modelHashes(input)]);
  return {
    app: { version: appVersion, deployed_update: readUpdateState(input.dataDir).current?.version ?? null },
    node: process.versions.node, sqlite, sqlite_vec: vec,
    onnxruntime: pkgVersion(input.root, 'onnxruntime-node'), node_llama_cpp: pkgVersion(input.root, 'node-llama-cpp'), llama_cpp: llama,
    ...d, models,
  };
}
