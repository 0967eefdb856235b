/**
 * The renderer served by the gateway at `/` in headless mode (DESIGN.md layout: renderer/ is
 * "served by the gateway at / in headless mode").
 *
 * Files come from the built renderer directory (`dist/renderer`), read once and kept in memory;
 * paths are normalised and confined to that directory. Unknown non-API paths fall back to
 * `index.html` (client-side routing). Answers carry a strict Content-Security-Policy.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { createHash } from 'node:crypto';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.woff': 'font/woff', '.txt': 'text/plain; charset=utf-8', '.map': 'application/json',
  '.wasm': 'application/wasm', '.webp': 'image/webp', '.jpg': 'image/jpeg',
};

/** The Content-Security-Policy of the renderer (same as the Electron shell's `app://`). */
export const RENDERER_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/** A file ready to send. */
export interface StaticFile { body: Buffer; type: string; etag: string; immutable: boolean }

/** In-memory renderer files keyed by URL path (`/index.html`, `/assets/x.js`). */
export class RendererFiles {
  private readonly files = new Map<string, StaticFile>();

  /** Load every file under `dir` (a few MB at most). */
  constructor(dir: string) {
    const walk = (d: string): void => {
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) { walk(p); continue; }
        const body = readFileSync(p);
        const rel = `/${relative(dir, p).split(sep).join('/')}`;
        this.files.set(rel, {
          body, type: TYPES[extname(p).toLowerCase()] ?? 'application/octet-stream',
          etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
          immutable: rel.startsWith('/assets/'),
        });
      }
    };
    walk(dir);
  }

  /** The file for a URL path, or `index.html` for client-side routes, or null (e.g. missing asset). */
  lookup(urlPath: string): StaticFile | null {
    let path: string;
    try { path = decodeURIComponent(urlPath); } catch { return null; }
    if (path.includes('\0')) return null;
    if (path === '/' || path === '') path = '/index.html';
    const hit = this.files.get(path);
    if (hit) return hit;
    // A path with an extension is a missing file, not a client-side route.
    if (extname(path) !== '') return null;
    return this.files.get('/index.html') ?? null;
  }
}
