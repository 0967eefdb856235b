/**
 * IPC contract between the Electron main process and the preload bridge (VS Code's `common`
 * layer: plain TypeScript, no Node, DOM or Electron types). Every channel carries the one prefix
 * `svc:`, checked on both ends, and has a typed request and answer.
 */

/** Prefix of every channel; the main side refuses any other. */
export const IPC_PREFIX = 'svc:';

/** Channel names, one per bridge operation. */
export const CHANNELS = {
  connectionInfo: 'svc:connection-info',
  saveFile: 'svc:save-file',
  keychainGet: 'svc:keychain-get',
  keychainSet: 'svc:keychain-set',
  keychainDelete: 'svc:keychain-delete',
  installerHandoff: 'svc:installer-handoff',
  openExternal: 'svc:open-external',
} as const;

/** A channel name. */
export type Channel = (typeof CHANNELS)[keyof typeof CHANNELS];

/** Where the renderer's stack lives and how the shell stores secrets. */
export interface ConnectionInfo {
  /** Gateway URL on loopback, e.g. `http://127.0.0.1:8080` (the renderer itself calls `app://svc/v1/...`). */
  gatewayUrl: string;
  /** Shell version (Electron app version). */
  appVersion: string;
  platform: string;
  /** `keychain` when the OS keychain (keytar) holds secrets, `encrypted-file` for the fallback. */
  secretStore: 'keychain' | 'encrypted-file';
}

/** Request of `saveFile`: the renderer proposes a name; the user picks the place. */
export interface SaveFileRequest {
  /** File name only (no directory), at most 200 characters. */
  suggestedName: string;
  /** UTF-8 text to write, at most 50 MB. */
  content: string;
  /** Dialog filter, e.g. `{name: 'JSON', extensions: ['json']}`. */
  filter?: { name: string; extensions: string[] };
}

/** Answer of `saveFile`: the path written, or null when the user cancelled. */
export interface SaveFileResult { path: string | null }

/** Secret names the renderer may use (a closed list: no arbitrary keychain access). */
export const SECRET_NAMES = ['refresh_token'] as const;

/** A secret name. */
export type SecretName = (typeof SECRET_NAMES)[number];

/** Request and answer types per channel (used by the validator, the handlers and the preload). */
export interface ChannelTypes {
  'svc:connection-info': { req: undefined; res: ConnectionInfo };
  'svc:save-file': { req: SaveFileRequest; res: SaveFileResult };
  'svc:keychain-get': { req: { name: SecretName }; res: { value: string | null } };
  'svc:keychain-set': { req: { name: SecretName; value: string }; res: { ok: true } };
  'svc:keychain-delete': { req: { name: SecretName }; res: { ok: true } };
  /** The one-shot installer-handoff id, at most once per data directory; null when spent or absent. */
  'svc:installer-handoff': { req: undefined; res: { handoff_id: string | null } };
  'svc:open-external': { req: { url: string }; res: { opened: boolean } };
}

/**
 * `window.desktop`: the one object the preload exposes through `contextBridge`. Present only in the
 * Electron shell; the renderer checks for it and otherwise behaves as a web page.
 */
export interface DesktopBridge {
  readonly isDesktop: true;
  connectionInfo(): Promise<ConnectionInfo>;
  saveFile(req: SaveFileRequest): Promise<SaveFileResult>;
  keychain: {
    get(name: SecretName): Promise<string | null>;
    set(name: SecretName, value: string): Promise<void>;
    delete(name: SecretName): Promise<void>;
  };
  /** Reads and consumes the installer handoff id (first run). */
  takeInstallerHandoff(): Promise<string | null>;
  /** Opens an allow-listed URL in the system browser; false when refused. */
  openExternal(url: string): Promise<boolean>;
}
