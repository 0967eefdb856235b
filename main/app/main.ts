/**
 * The Electron main process (`npm start` runs it when Electron's binary is present; see
 * main/start.ts). Order matters:
 *  1. `app://` is registered as a privileged scheme before `ready`;
 *  2. the single-instance lock: a second launch focuses the first window and exits;
 *  3. the data directory is the userData folder: the shell sets `SVC_DATA_DIR` in the environment
 *     *before* loading main/config, which stays the one reader of the environment (an explicit
 *     SVC_DATA_DIR from the user wins);
 *  4. the supervisor starts every service; the window loads `app://svc/` once the gateway is ready;
 *  5. quitting stops the supervisor cleanly (no lost writes) before the process exits.
 * The policy itself (CSP, navigation, permissions, IPC validation) lives in plain, unit-tested
 * modules: security.ts, protocol.ts, ../ipc/validate.ts, ../ipc/handlers.ts.
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeImage, net, protocol, safeStorage, session, shell, Tray } from 'electron';
import { writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { basename, join } from 'node:path';
import { APP_ORIGIN, APP_SCHEME, DEFAULT_EXTERNAL_HOSTS, externalAllowed, gatewayCertificateVerdict, isAppUrl, mainWindowOptions, navigationAllowed, permissionAllowed, windowOpenDecision } from './security.js';
import { fingerprintOfPem, tlsFingerprintOf } from '../../services/shared/identity/tls-cert.js';
import { appProtocolHandler } from './protocol.js';
import { openSecretStore } from './secrets.js';
import { handoffReader } from './handoff.js';
import { signInWithLoopback } from './loopback-sign-in.js';
import { registerIpc } from '../ipc/handlers.js';
import type { Supervisor } from '../supervisor/index.js';

const here = fileURLToPath(new URL('.', import.meta.url));
/** dist/main/app -> dist/renderer */
const RENDERER_DIR = join(here, '..', '..', 'renderer');
const PRELOAD = join(here, '..', 'preload', 'preload.cjs');
const ICON = join(here, '..', '..', '..', 'assets', 'icon.png');

protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true, corsEnabled: false, codeCache: true } },
]);

let win: BrowserWindow | null = null;
let tray: Tray | null = null;
let sup: Supervisor | null = null;
let quitting = false;

const log = (m: string): void => { process.stderr.write(`svc shell: ${m}\n`); };

function showWindow(): void {
  if (!win) return;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

function harden(contents: Electron.WebContents): void {
  contents.on('will-navigate', (e, url) => {
    if (navigationAllowed(url)) return;
    e.preventDefault();
    if (externalAllowed(url)) void shell.openExternal(url);
  });
  contents.on('will-redirect', (e, url) => { if (!navigationAllowed(url)) e.preventDefault(); });
  contents.on('will-attach-webview', (e) => e.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const d = windowOpenDecision(url);
    if (d.openExternal) void shell.openExternal(url);
    return { action: d.action };
  });
}

async function createWindow(): Promise<void> {
  win = new BrowserWindow({ ...mainWindowOptions(PRELOAD, { devTools: !app.isPackaged }), ...(existsSync(ICON) ? { icon: ICON } : {}) });
  harden(win.webContents);
  win.once('ready-to-show', () => win?.show());
  win.on('close', (e) => {
    // Closing the window keeps the stack running in the tray; Quit (tray or menu) ends it.
    if (!quitting && tray) { e.preventDefault(); win?.hide(); }
  });
  win.on('closed', () => { win = null; });
  await win.loadURL(`${APP_ORIGIN}/`);
}

function createTray(gatewayUrl: string): void {
  const image = existsSync(ICON) ? nativeImage.createFromPath(ICON).resize({ width: 16, height: 16 }) : nativeImage.createEmpty();
  tray = new Tray(image);
  tray.setToolTip(`svc workstation · ${gatewayUrl}`);
  tray.setContextMenu(Menu.buildFromTemplate([
    { label: 'Open svc', click: showWindow },
    { type: 'separator' },
    { label: 'Quit', click: () => app.quit() },
  ]));
  tray.on('click', showWindow);
}

async function start(): Promise<void> {
  // 3. The userData folder is the data directory, handed to main/config through the environment.
  // eslint-disable-next-line no-restricted-properties -- the shell sets the one input main/config reads; it never reads env itself
  process.env.SVC_DATA_DIR ||= join(app.getPath('userData'), 'data');
  if (app.isPackaged) {
    // Packaged: migrations, models and the guardrail's weights are extra resources beside app.asar (electron-builder.yml).
    // eslint-disable-next-line no-restricted-properties -- as above: inputs for main/config
    process.env.SVC_MIGRATIONS_DIR ||= join(process.resourcesPath, 'migrations');
    // eslint-disable-next-line no-restricted-properties -- as above: inputs for main/config
    process.env.SVC_MODELS_DIR ||= join(process.resourcesPath, 'models');
    // eslint-disable-next-line no-restricted-properties -- as above: the guardrail's trained n-gram weights (issue 16 item 2)
    process.env.SVC_GUARDRAIL_NGRAM_MODEL ||= join(process.resourcesPath, 'guardrail', 'ngram-guard.json');
  }
  const { loadStackConfig } = await import('../config/index.js');
  const { Supervisor } = await import('../supervisor/index.js');
  // Issue 19 item 2: a restore staged by the gateway applies before any store opens.
  await (await import('../restore-step.js')).applyPendingRestore();
  const stack = loadStackConfig();
  sup = new Supervisor(stack, { log });
  const gatewayUrl = await sup.start();
  log(`ready ${gatewayUrl} (data ${stack.dataDir})`);
  // Issue 19 item 4: the update launcher (main/update/launch.ts) waits for this line on stdout.
  process.stdout.write(`svc ready ${gatewayUrl}\n`);
  // Off loopback the gateway serves HTTPS with its own certificate (issue 14 item 7): trust exactly
  // that one, for the gateway's address only.
  if (gatewayUrl.startsWith('https:')) {
    const pinned = tlsFingerprintOf(stack.dataDir);
    session.defaultSession.setCertificateVerifyProc((req, cb) => {
      let fp: string | null = null;
      try { fp = fingerprintOfPem(req.certificate.data); } catch { /* unparsable: Chromium decides */ }
      cb(gatewayCertificateVerdict(gatewayUrl, pinned, req.hostname, fp));
    });
  }

  const secrets = await openSecretStore({ service: 'svc-workstation', dir: stack.dataDir, wrapper: safeStorage, log });
  protocol.handle(APP_SCHEME, appProtocolHandler({ rendererDir: RENDERER_DIR, gatewayUrl, fetch: (u, init) => net.fetch(u, init as RequestInit) }));

  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((wc, permission, cb) => cb(permissionAllowed(permission, wc.getURL())));
  ses.setPermissionCheckHandler((wc, permission) => permissionAllowed(permission, wc?.getURL()));

  registerIpc(ipcMain, {
    connectionInfo: () => ({ gatewayUrl, appVersion: app.getVersion(), platform: process.platform, secretStore: secrets.kind }),
    saveFile: async (req) => {
      const r = await (win ? dialog.showSaveDialog(win, { defaultPath: basename(req.suggestedName), filters: req.filter ? [req.filter] : [] }) : dialog.showSaveDialog({ defaultPath: basename(req.suggestedName) }));
      if (r.canceled || !r.filePath) return { path: null };
      await writeFile(r.filePath, req.content, { encoding: 'utf8', mode: 0o644 });
      return { path: r.filePath };
    },
    secrets,
    takeInstallerHandoff: handoffReader(stack.dataDir),
    openExternal: async (url) => {
      if (!externalAllowed(url, DEFAULT_EXTERNAL_HOSTS)) return false;
      await shell.openExternal(url);
      return true;
    },
    // Issue 15 item 1: the shell signs in as a native app (RFC 8252 loopback redirect), in the system browser.
    signIn: () => signInWithLoopback({ gatewayUrl, openBrowser: (url) => shell.openExternal(url) }),
  }, isAppUrl, log);

  createTray(gatewayUrl);
  await createWindow();
}

// 2. One instance: a second launch focuses the first.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', showWindow);
  app.on('web-contents-created', (_e, contents) => harden(contents));
  app.whenReady().then(start).catch((err: unknown) => {
    dialog.showErrorBox('svc workstation could not start', err instanceof Error ? err.message : String(err));
    app.exit(1);
  });
  app.on('activate', () => { if (!win && sup) void createWindow(); else showWindow(); });
  app.on('window-all-closed', () => { if (!tray) app.quit(); });
  // 5. Stop the stack before exiting; the first before-quit defers the exit until it is done.
  app.on('before-quit', (e) => {
    quitting = true;
    if (!sup) return;
    e.preventDefault();
    const s = sup;
    sup = null;
    s.stop().catch((err: unknown) => log(`stop failed: ${String(err)}`)).finally(() => app.quit());
  });
}
