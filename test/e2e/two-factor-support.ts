/**
 * Helpers of the second-factor browser tests (issue 14): the desktop page with a stand-in for the
 * Electron preload bridge (so the renderer performs the installer handoff as the desktop app does on
 * first run), the phone-sized page, a record of every token-bearing answer the browser received, and
 * the command-line device (`scripts/svc-device`, compiled next to this test).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';

/**
 * A 1280x800 page (uncaught errors and CSP refusals recorded) whose `window.desktop` hands out `handoffId` once (as the shell's
 * `takeInstallerHandoff` does) and keeps the refresh token in `window.__keychain` (the OS keychain's
 * stand-in), so a test can see when tokens arrive.
 */
export async function desktopPage(browser: Browser, handoffId: string | null, opts: { ignoreHTTPSErrors?: boolean } = {}): Promise<{ page: Page; errors: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, ignoreHTTPSErrors: opts.ignoreHTTPSErrors ?? false });
  await ctx.addInitScript((id: string | null) => {
    const kc: Record<string, string> = {};
    let handoff = id;
    const g = globalThis as unknown as { __keychain: Record<string, string>; desktop: unknown; location: { origin: string } };
    g.__keychain = kc;
    g.desktop = {
      isDesktop: true,
      connectionInfo: async () => ({ gatewayUrl: g.location.origin, appVersion: 'test', platform: 'linux', secretStore: 'keychain' }),
      saveFile: async () => ({ saved: false }),
      keychain: {
        get: async (n: string) => kc[n] ?? null,
        set: async (n: string, v: string) => { kc[n] = v; },
        delete: async (n: string) => { delete kc[n]; },
      },
      takeInstallerHandoff: async () => { const h = handoff; handoff = null; return h; },
      openExternal: async () => false,
    };
  }, handoffId);
  return watched(await ctx.newPage());
}

/** Record uncaught errors and Content-Security-Policy refusals of `page`. */
function watched(page: Page): { page: Page; errors: string[] } {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (/Content Security Policy|Refused to (load|execute|apply|connect)/.test(m.text())) errors.push(`csp: ${m.text()}`); });
  return { page, errors };
}

/**
 * A phone-sized page (390x844, touch; uncaught errors and CSP refusals recorded). `ignoreHTTPSErrors`
 * plays the user who went past the browser's warning about the workstation's own certificate.
 */
export async function phonePage(browser: Browser, opts: { ignoreHTTPSErrors?: boolean } = {}): Promise<{ page: Page; errors: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, ignoreHTTPSErrors: opts.ignoreHTTPSErrors ?? false });
  return watched(await ctx.newPage());
}

/** Answers of the login routes the page received: status and whether the body carried a token. */
export interface LoginAnswer { path: string; status: number; hasToken: boolean }

/** The embedded IdP's token endpoint (issue 15 item 1: the browser signs in there with PKCE). */
export const IDP_TOKEN_PATH = '/idp/realms/svc/protocol/openid-connect/token';

/**
 * Record every answer of `/v1/auth/login`, `/v1/auth/login/2fa`, the IdP's token endpoint and the
 * IdP's interaction pages (`/idp/realms/svc/interaction/...`) the page receives.
 */
export function recordLoginAnswers(page: Page): LoginAnswer[] {
  const seen: LoginAnswer[] = [];
  page.on('response', (res) => {
    const path = new URL(res.url()).pathname;
    if (path !== '/v1/auth/login' && path !== '/v1/auth/login/2fa' && path !== IDP_TOKEN_PATH && !path.startsWith('/idp/realms/svc/interaction/')) return;
    if (res.status() >= 300 && res.status() < 400) { seen.push({ path, status: res.status(), hasToken: false }); return; }
    void res.text().then((t) => { seen.push({ path, status: res.status(), hasToken: /"(access|refresh)_token"/.test(t) }); }, () => {});
  });
  return seen;
}

/** The installer-handoff id the auth service wrote on first start. */
export function handoffIdOf(dataDir: string): string {
  return (JSON.parse(readFileSync(join(dataDir, 'installer-handoff.json'), 'utf8')) as { handoff_id: string }).handoff_id;
}

/** The compiled command-line device (`scripts/svc-device.ts`) of this build. */
export const SVC_DEVICE = fileURLToPath(new URL('../../scripts/svc-device.js', import.meta.url));

/** Run `svc-device <args>`: exit code, stdout lines, stderr. */
export function svcDevice(args: string[]): Promise<{ code: number; lines: string[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [SVC_DEVICE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    p.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? -1, lines: out.split('\n').filter(Boolean), stderr: err.trim() }));
  });
}

/** `POST /v1/auth/login` as a browser would: status and body. */
export async function passwordLogin(url: string, username: string, password: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  return { status: r.status, body: await r.json() as Record<string, unknown> };
}

/** `POST /v1/auth/login/2fa`: status and body. */
export async function secondFactor(url: string, challenge_id: string, code?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${url}/v1/auth/login/2fa`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(code === undefined ? { challenge_id } : { challenge_id, code }) });
  return { status: r.status, body: await r.json() as Record<string, unknown> };
}
