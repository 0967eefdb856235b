/**
 * Security policy of the Electron shell as plain functions (no Electron import, unit-tested):
 * the `app://` origin, its CSP, which navigations and external links are allowed, the
 * BrowserWindow options, and which permission requests are granted. Follows Electron's security
 * guide (docs/tutorial/security.md) and VS Code's habits.
 */
import { RENDERER_CSP } from '../../services/gateway/src/contracts.js';

/** Custom scheme serving the renderer (never `file://`). */
export const APP_SCHEME = 'app';
/** Host of the renderer under the scheme. */
export const APP_HOST = 'svc';
/** Origin of the renderer. */
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/**
 * CSP of `app://` answers: the gateway's renderer policy (same renderer, same rules). The API is
 * proxied under the same origin, so `connect-src 'self'` suffices.
 */
export const APP_CSP = RENDERER_CSP;

/** Parse a URL, or null. */
function parse(url: string): URL | null {
  try { return new URL(url); } catch { return null; }
}

/** True when `url` is the renderer's own origin. */
export function isAppUrl(url: string): boolean {
  const u = parse(url);
  return u !== null && u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST && u.username === '' && u.password === '';
}

/**
 * `will-navigate` / `will-redirect` policy: only the renderer's own origin (a reload or a
 * client-side route); everything else is refused (and may be offered to `openExternal`).
 */
export function navigationAllowed(url: string): boolean {
  return isAppUrl(url);
}

/** Hosts the app may open in the system browser (exact host or a subdomain of it). */
export const DEFAULT_EXTERNAL_HOSTS: readonly string[] = Object.freeze(['github.com', 'docs.github.com']);

/**
 * `openExternal` policy: `https:` only, no credentials, default port, host on the allow-list (or
 * one of its subdomains). `mailto:` is allowed when `allowMailto`. Everything else (file:, smb:,
 * custom schemes, http:) is refused, since openExternal hands the URL to the OS.
 */
export function externalAllowed(url: string, hosts: readonly string[] = DEFAULT_EXTERNAL_HOSTS, allowMailto = true): boolean {
  const u = parse(url);
  if (!u) return false;
  if (u.protocol === 'mailto:') {
    // Only an address plus subject/body: mail clients honour parameters such as `attach`.
    const params = [...u.searchParams.keys()];
    return allowMailto && /^[^@\s/?]+@[^@\s/?]+$/.test(decodeURIComponent(u.pathname)) && params.every((k) => k === 'subject' || k === 'body');
  }
  if (u.protocol !== 'https:' || u.username || u.password || u.port) return false;
  const host = u.hostname.toLowerCase();
  return hosts.some((h) => host === h || host.endsWith(`.${h}`));
}

/** Web preferences every window gets (the part of BrowserWindowConstructorOptions that matters). */
export interface SecureWebPreferences {
  preload: string;
  contextIsolation: true;
  sandbox: true;
  nodeIntegration: false;
  nodeIntegrationInWorker: false;
  nodeIntegrationInSubFrames: false;
  webSecurity: true;
  allowRunningInsecureContent: false;
  webviewTag: false;
  navigateOnDragDrop: false;
  safeDialogs: true;
  spellcheck: boolean;
  devTools: boolean;
}

/** Options of the main window. */
export interface MainWindowOptions {
  width: number; height: number; minWidth: number; minHeight: number; show: false; title: string;
  backgroundColor: string; autoHideMenuBar: true; webPreferences: SecureWebPreferences;
}

/** The main window's options: isolated, sandboxed, no Node in the renderer. */
export function mainWindowOptions(preload: string, opts: { devTools?: boolean } = {}): MainWindowOptions {
  return {
    width: 1280, height: 840, minWidth: 720, minHeight: 480, show: false, title: 'svc workstation',
    backgroundColor: '#f7f7f8', autoHideMenuBar: true,
    webPreferences: {
      preload, contextIsolation: true, sandbox: true, nodeIntegration: false, nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false, webSecurity: true, allowRunningInsecureContent: false, webviewTag: false,
      navigateOnDragDrop: false, safeDialogs: true, spellcheck: true, devTools: opts.devTools ?? false,
    },
  };
}

/** Permissions the renderer may get: writing to the clipboard (Copy buttons), from its own origin. */
const GRANTED = new Set(['clipboard-sanitized-write']);

/** Permission request/check policy: deny by default. */
export function permissionAllowed(permission: string, requestingUrl: string | undefined): boolean {
  return GRANTED.has(permission) && requestingUrl !== undefined && isAppUrl(requestingUrl);
}

/** Answer of `setWindowOpenHandler`: never a new window; allowed links go to the system browser. */
export function windowOpenDecision(url: string, hosts: readonly string[] = DEFAULT_EXTERNAL_HOSTS): { action: 'deny'; openExternal: boolean } {
  return { action: 'deny', openExternal: externalAllowed(url, hosts) };
}

/**
 * The shell's certificate verdict for a TLS connection of its session (issue 14 item 7): a gateway
 * bound off loopback serves HTTPS with its own (usually self-signed) certificate, and the shell
 * reaches it at `gatewayUrl`. Exactly that certificate (`pinned`, its SHA-256 fingerprint) on the
 * gateway's host is trusted (0); anything else gets Chromium's own verdict (-3).
 */
export function gatewayCertificateVerdict(gatewayUrl: string, pinned: string | null, hostname: string, fingerprint: string | null): 0 | -3 {
  let gw: URL;
  try { gw = new URL(gatewayUrl); } catch { return -3; }
  const host = gw.hostname.replace(/^\[|\]$/g, '');
  return gw.protocol === 'https:' && pinned !== null && fingerprint === pinned && hostname.replace(/^\[|\]$/g, '') === host ? 0 : -3;
}
