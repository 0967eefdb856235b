/**
 * The preload script: exposes one small typed object, `window.desktop`, through `contextBridge`
 * (never `ipcRenderer` itself, never a pass-through callback whose event would leak `sender`).
 *
 * Sandboxed preloads cannot load relative modules, so this file is CommonJS (`.cts` -> `.cjs`) and
 * self-contained: types come from `../ipc/common/channels.ts` (erased at compile time), and the
 * channel names below are checked against that file's `CHANNELS` by the compiler (`satisfies`).
 */
import type { CHANNELS as ChannelsType, Channel, ChannelTypes, DesktopBridge, SecretName } from '../ipc/common/channels.js';

const C = {
  connectionInfo: 'svc:connection-info',
  saveFile: 'svc:save-file',
  keychainGet: 'svc:keychain-get',
  keychainSet: 'svc:keychain-set',
  keychainDelete: 'svc:keychain-delete',
  installerHandoff: 'svc:installer-handoff',
  openExternal: 'svc:open-external',
  signIn: 'svc:sign-in',
} as const satisfies typeof ChannelsType;

/** The one operation the bridge needs from `ipcRenderer`. */
export interface Invoker { invoke(channel: string, payload?: unknown): Promise<unknown> }

/** Build the bridge over `ipc` (exported for tests, which pass a fake). */
export function createBridge(ipc: Invoker): DesktopBridge {
  const call = <K extends Channel>(ch: K, payload?: ChannelTypes[K]['req']): Promise<ChannelTypes[K]['res']> =>
    ipc.invoke(ch, payload) as Promise<ChannelTypes[K]['res']>;
  return Object.freeze({
    isDesktop: true as const,
    connectionInfo: () => call(C.connectionInfo),
    saveFile: (req: ChannelTypes['svc:save-file']['req']) => call(C.saveFile, { suggestedName: String(req.suggestedName), content: String(req.content), ...(req.filter ? { filter: req.filter } : {}) }),
    keychain: Object.freeze({
      get: async (name: SecretName) => (await call(C.keychainGet, { name })).value,
      set: async (name: SecretName, value: string) => { await call(C.keychainSet, { name, value }); },
      delete: async (name: SecretName) => { await call(C.keychainDelete, { name }); },
    }),
    takeInstallerHandoff: async () => (await call(C.installerHandoff)).handoff_id,
    openExternal: async (url: string) => (await call(C.openExternal, { url: String(url) })).opened,
    signIn: () => call(C.signIn),
  });
}

// In Electron (not under unit tests) expose the bridge to the page's main world.
if (process.versions.electron) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- sandboxed preloads load 'electron' with require
  const { contextBridge, ipcRenderer } = require('electron') as typeof import('electron');
  contextBridge.exposeInMainWorld('desktop', createBridge({ invoke: (ch, payload) => ipcRenderer.invoke(ch, payload) }));
}
