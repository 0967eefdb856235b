/**
 * The `gateway-static` plugin: the renderer served by the gateway at `/` in headless mode
 * (DESIGN.md layout: renderer/ is "served by the gateway at / in headless mode").
 *
 * Requests no route matched are answered from the built renderer directory (`dist/renderer`), read
 * once and kept in memory: `GET`/`HEAD` outside `/v1/` get the file with a strict
 * Content-Security-Policy (`RENDERER_CSP`) and an ETag (304 on `If-None-Match`); unknown
 * extension-less paths fall back to `index.html` (client-side routing); anything else is 404
 * `not_found`. Paths are decoded and confined to the directory. The phone authenticator is a page of
 * its own (issue 14 item 7): extension-less paths under `/m/` fall back to `mobile.html`.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import { notFoundError } from '../../../shared/kit/domain-error.js';
import { RENDERER_CACHE_CONTROL, RENDERER_CSP } from '../contracts.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.woff': 'font/woff', '.txt': 'text/plain; charset=utf-8', '.map': 'application/json',
  '.wasm': 'application/wasm', '.webp': 'image/webp', '.jpg': 'image/jpeg',
};

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

  /**
   * The file for a URL path, or the page of a client-side route (`mobile.html` under `/m`,
   * `index.html` elsewhere), or null (e.g. a missing asset).
   */
  lookup(urlPath: string): StaticFile | null {
    let path: string;
    try { path = decodeURIComponent(urlPath); } catch { return null; }
    if (path.includes('\0')) return null;
    if (path === '/' || path === '') path = '/index.html';
    const hit = this.files.get(path);
    if (hit) return hit;
    // A path with an extension is a missing file, not a client-side route.
    if (extname(path) !== '') return null;
    if ((path === '/m' || path.startsWith('/m/')) && this.files.has('/mobile.html')) return this.files.get('/mobile.html')!;
    return this.files.get('/index.html') ?? null;
  }
}

/** Options of the `gateway-static` plugin. */
export interface StaticPluginOptions {
  /** The built renderer directory (`rendererDir`). */
  dir: string;
}

/** Load the renderer files and answer unmatched requests from them. */
export const staticPlugin = fp<StaticPluginOptions>(async (app, opts) => {
  const files = new RendererFiles(opts.dir);
  app.gatewayTargets.unmatched((req, reply, path) => {
    if ((req.method === 'GET' || req.method === 'HEAD') && !path.startsWith('/v1/')) {
      const file = files.lookup(path);
      if (file) {
        void reply.header('content-type', file.type).header('etag', file.etag)
          .header('content-security-policy', RENDERER_CSP).header('x-content-type-options', 'nosniff')
          .header('referrer-policy', 'no-referrer')
          .header('cache-control', file.immutable ? RENDERER_CACHE_CONTROL.immutable : RENDERER_CACHE_CONTROL.revalidate);
        if (req.headers['if-none-match'] === file.etag) return reply.code(304).send();
        return reply.send(file.body);
      }
    }
    throw notFoundError(`no route for ${req.method} ${path}`);
  });
}, { name: 'gateway-static', fastify: '5.x', dependencies: ['gateway-proxy'], encapsulate: true });
