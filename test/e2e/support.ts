/**
 * End-to-end support: the built renderer, the headless stack (in-process supervisor), the scripted
 * OpenAI-compatible provider, and Debian's Chromium driven by playwright-core (DESIGN.md "Browser
 * tests"). Screenshots land in `test-results/`.
 */
import { after, before } from 'node:test';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startStack, ADMIN, type TestStack } from '../helpers/stack.js';

/** Repository root (dist/test/e2e/ -> ../../..). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const RESULTS = join(ROOT, 'test-results');
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];

export { ADMIN };

/**
 * Build the renderer when `dist/renderer/index.html` is missing (`npm run build` normally did it).
 * Must run before `startStack()`: main/config picks the renderer up only when it exists at start.
 */
export async function ensureRenderer(): Promise<void> {
  if (existsSync(join(ROOT, 'dist', 'renderer', 'index.html'))) return;
  const vite = await import('vite');
  await vite.build({ configFile: join(ROOT, 'renderer', 'vite.config.ts'), logLevel: 'warn' });
}

/** Launch Chromium; null (with the reason) when it is not installed. */
export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** True when Chromium is installed. */
export function haveChromium(): boolean { return existsSync(CHROMIUM); }

/** The renderer and stack, started once per test file. */
export async function startE2E(env: Record<string, string> = {}): Promise<TestStack> {
  await ensureRenderer();
  return startStack(env);
}

/** A page that records uncaught errors and console errors. */
export async function newPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return { page, errors };
}

/** Save a screenshot as `test-results/<name>.png`; returns the path. */
export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(RESULTS, { recursive: true });
  const path = join(RESULTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/** Sign in through the form with the labelled fields. */
export async function signIn(page: Page, url: string, username = ADMIN.email, password = ADMIN.password): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 15_000 });
}

/**
 * Why a backend surface is not testable yet, or null when it answers. A route the gateway or the
 * service does not serve answers 404 (`not available in this build`) or 502 (service down).
 */
export async function unavailable(url: string, token: string, method: string, path: string, body?: unknown): Promise<string | null> {
  const r = await fetch(`${url}${path}`, {
    method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status === 404 || r.status === 502 || r.status === 501) return `${method} ${path} answers ${r.status} (${text.slice(0, 120)}); the backend for it has not landed yet`;
  return null;
}

/** A stack, a browser and a page signed in as the admin, shared by one test file's tests. */
export interface AdminSession { stack: TestStack; browser: Browser; page: Page; errors: string[] }

/**
 * Register `before`/`after` hooks that start the stack and a browser and sign the admin in, and stop
 * them after the file's tests; the returned object is filled in `before`. Nothing starts when
 * chromium is missing (`skip` is then true; tests pass it as their `skip` option).
 */
export function adminSession(env: Record<string, string> = {}, cleanup?: (s: AdminSession) => void): { session: AdminSession; skip: false | string } {
  const skip = haveChromium() ? false : 'chromium is not installed';
  const session = {} as AdminSession;
  before(async () => {
    if (skip) return;
    session.stack = await startE2E(env);
    session.browser = await launch();
    ({ page: session.page, errors: session.errors } = await newPage(session.browser));
    await signIn(session.page, session.stack.url);
  });
  after(async () => {
    if (skip) return;
    await session.browser?.close();
    await session.stack?.stop();
    if (session.stack) cleanup?.(session);
  });
  return { session, skip };
}
