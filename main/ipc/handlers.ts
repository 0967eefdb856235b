/**
 * IPC handlers of the shell: each channel of `common/channels.ts`, behind `checkChannel`,
 * `checkSender` and `checkPayload`. The implementations are injected (`ShellServices`), and the
 * registrar takes an `ipcMain`-like object, so this file never imports Electron and runs in tests.
 * A refused call rejects with a plain `Error` whose message is the refusal code only (nothing
 * internal crosses to the renderer).
 */
import { CHANNELS, type Channel, type ChannelTypes } from './common/channels.js';
import { IpcValidationError, checkChannel, checkPayload, checkSender, type SenderInfo } from './validate.js';

/** What the handlers do, implemented in main/app with Electron. */
export interface ShellServices {
  connectionInfo(): ChannelTypes['svc:connection-info']['res'] | Promise<ChannelTypes['svc:connection-info']['res']>;
  saveFile(req: ChannelTypes['svc:save-file']['req']): Promise<ChannelTypes['svc:save-file']['res']>;
  secrets: { get(name: string): Promise<string | null>; set(name: string, value: string): Promise<void>; delete(name: string): Promise<void> };
  takeInstallerHandoff(): Promise<string | null>;
  /** Open the URL when the allow-list admits it; false otherwise. */
  openExternal(url: string): Promise<boolean>;
  /** Sign in at the embedded IdP through the system browser (main/app/loopback-sign-in.ts). */
  signIn(): Promise<ChannelTypes['svc:sign-in']['res']>;
}

/** The part of `ipcMain` used here. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: SenderInfo, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

type Impl = { [C in Channel]: (req: ChannelTypes[C]['req']) => Promise<ChannelTypes[C]['res']> };

/** The validated dispatcher of one call (exported for tests). */
export function dispatcher(services: ShellServices, isAllowedOrigin: (url: string) => boolean, log: (msg: string) => void = () => {}) {
  const impl: Impl = {
    'svc:connection-info': async () => services.connectionInfo(),
    'svc:save-file': (req) => services.saveFile(req),
    'svc:keychain-get': async (req) => ({ value: await services.secrets.get(req.name) }),
    'svc:keychain-set': async (req) => { await services.secrets.set(req.name, req.value); return { ok: true } as const; },
    'svc:keychain-delete': async (req) => { await services.secrets.delete(req.name); return { ok: true } as const; },
    'svc:installer-handoff': async () => ({ handoff_id: await services.takeInstallerHandoff() }),
    'svc:open-external': async (req) => ({ opened: await services.openExternal(req.url) }),
    'svc:sign-in': () => services.signIn(),
  };
  return async (channel: string, event: SenderInfo, payload: unknown): Promise<unknown> => {
    try {
      checkChannel(channel);
      checkSender(event, isAllowedOrigin);
      const req = checkPayload(channel, payload);
      return await (impl[channel] as (r: unknown) => Promise<unknown>)(req);
    } catch (err) {
      if (err instanceof IpcValidationError) {
        log(`ipc refused ${channel}: ${err.code} (${err.message})`);
        throw new Error(err.code);
      }
      log(`ipc ${channel} failed: ${err instanceof Error ? err.message : String(err)}`);
      throw new Error('internal_error');
    }
  };
}

/** Register every channel on `ipc`; returns a function that removes them. */
export function registerIpc(ipc: IpcMainLike, services: ShellServices, isAllowedOrigin: (url: string) => boolean, log?: (msg: string) => void): () => void {
  const run = dispatcher(services, isAllowedOrigin, log);
  for (const ch of Object.values(CHANNELS)) ipc.handle(ch, (event, payload) => run(ch, event, payload));
  return () => { for (const ch of Object.values(CHANNELS)) ipc.removeHandler(ch); };
}
