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
  signIn: 'svc:sign-in',
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
  /** Sign in at the embedded IdP in the system browser (RFC 8252 loopback redirect, PKCE S256); the IdP's token response. */
  'svc:sign-in': { req: undefined; res: DesktopSignInTokens };
}

/**
 * The embedded IdP's token response to the shell's loopback sign-in (issue 15 item 1; OAuth 2.0
 * field names, RFC 6749 §5.1): the renderer keeps them as IdP tokens and refreshes at the realm.
 */
export interface DesktopSignInTokens {
  access_token: string;
  refresh_token: string;
  id_token?: string;
  token_type: string;
  /** Access token lifetime, seconds. */
  expires_in: number;
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
  /**
   * Signs in at the embedded IdP through the system browser (authorization code + PKCE with a
   * loopback redirect, RFC 8252) and answers its tokens. @throws Error when cancelled or timed out.
   */
  signIn(): Promise<DesktopSignInTokens>;
}
