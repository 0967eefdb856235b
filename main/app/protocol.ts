/**
 * The `app://svc/` protocol: serves the built renderer from `dist/renderer` with the CSP header
 * (client-side routes fall back to index.html) and proxies `app://svc/v1/*` and the embedded IdP's
 * `app://svc/idp/*` (discovery, token refresh, revocation; issue 15 item 1) to the loopback
 * gateway, so the renderer calls its own origin exactly as it does when the gateway serves it.
 *
 * No Electron import: `appProtocolHandler()` is a `(Request) => Promise<Response>` that
 * `protocol.handle('app', ...)` takes, with file reading and the upstream fetch injected (Electron's
 * `net.fetch` in the app, a fake in tests).
 */
import { readFile, realpath } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { APP_CSP, isAppUrl } from './security.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.woff2': 'font/woff2',
  '.woff': 'font/woff', '.txt': 'text/plain; charset=utf-8', '.map': 'application/json', '.wasm': 'application/wasm', '.webp': 'image/webp',
};

/** What an `app://` URL resolves to. */
export type AppTarget =
  | { kind: 'file'; path: string; type: string }
  | { kind: 'api'; pathAndQuery: string }
  | { kind: 'refused'; status: 400 | 403 | 404 };

/**
 * Resolve an `app://svc/...` URL: `/v1/...` and `/idp/...` are the API; other paths are files under
 * `rendererDir` (decoded, normalised, confined); extension-less paths are client routes (index.html).
 */
export function resolveAppUrl(url: string, rendererDir: string): AppTarget {
  if (!isAppUrl(url)) return { kind: 'refused', status: 403 };
  const u = new URL(url);
  let path: string;
  try { path = decodeURIComponent(u.pathname); } catch { return { kind: 'refused', status: 400 }; }
  if (path.includes('\0') || path.includes('\\')) return { kind: 'refused', status: 400 };
  if (u.pathname === '/v1' || u.pathname.startsWith('/v1/') || u.pathname.startsWith('/idp/')) return { kind: 'api', pathAndQuery: `${u.pathname}${u.search}` };
  if (path === '/' || path === '') path = '/index.html';
  if (extname(path) === '') path = '/index.html';
  const root = resolve(rendererDir);
  const full = resolve(join(root, path));
  if (full !== root && !full.startsWith(root + sep)) return { kind: 'refused', status: 403 };
  return { kind: 'file', path: full, type: TYPES[extname(full).toLowerCase()] ?? 'application/octet-stream' };
}

/** Request headers never forwarded to the gateway (the renderer's origin means nothing there). */
const DROP_REQUEST = new Set(['origin', 'referer', 'cookie', 'host', 'connection']);

/** Dependencies of the handler. */
export interface AppProtocolDeps {
  rendererDir: string;
  /** Gateway base URL, e.g. `http://127.0.0.1:8080`. */
  gatewayUrl: string;
  /** Upstream fetch (Electron's `net.fetch`). */
  fetch: (input: string, init: RequestInit & { duplex?: 'half' }) => Promise<Response>;
  readFile?: (path: string) => Promise<Uint8Array>;
}

/** Build the `protocol.handle('app', ...)` handler. */
export function appProtocolHandler(deps: AppProtocolDeps): (req: Request) => Promise<Response> {
  const read = deps.readFile ?? (async (p: string) => readFile(await realpath(p)));
  const gateway = deps.gatewayUrl.replace(/\/+$/, '');
  return async (req) => {
    const t = resolveAppUrl(req.url, deps.rendererDir);
    if (t.kind === 'refused') return new Response(null, { status: t.status });
    if (t.kind === 'api') {
      const headers = new Headers();
      req.headers.forEach((v, k) => { if (!DROP_REQUEST.has(k.toLowerCase())) headers.set(k, v); });
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      try {
        return await deps.fetch(`${gateway}${t.pathAndQuery}`, {
          method: req.method, headers, redirect: 'manual', ...(hasBody ? { body: req.body, duplex: 'half' as const } : {}),
        });
      } catch {
        return new Response('{"error":"service unavailable"}', { status: 502, headers: { 'content-type': 'application/json' } });
      }
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return new Response(null, { status: 405 });
    try {
      const body = await read(t.path);
      return new Response(req.method === 'HEAD' ? null : body, {
        status: 200,
        headers: { 'content-type': t.type, 'content-security-policy': APP_CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' },
      });
    } catch {
      return new Response(null, { status: 404 });
    }
  };
}
