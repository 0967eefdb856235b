/**
 * Validation of every IPC call before a handler runs (VS Code: channels share one prefix, checked on
 * both ends; handlers check the sender frame and its origin). Plain TypeScript, unit-tested.
 */
import { CHANNELS, IPC_PREFIX, SECRET_NAMES, type Channel, type ChannelTypes, type SecretName } from './common/channels.js';

/** Why a call was refused (callers switch on `code`). */
export type IpcRefusal = 'bad_channel' | 'bad_sender' | 'bad_origin' | 'bad_payload';

/** A refused call. */
export class IpcValidationError extends Error {
  readonly code: IpcRefusal;
  constructor(code: IpcRefusal, message: string) {
    super(message);
    this.name = 'IpcValidationError';
    this.code = code;
  }
}

/** The bit of Electron's `IpcMainInvokeEvent` the validator reads. */
export interface SenderInfo {
  senderFrame: { url: string; parent: unknown | null } | null;
}

const KNOWN = new Set<string>(Object.values(CHANNELS));

/** @throws IpcValidationError bad_channel */
export function checkChannel(channel: string): asserts channel is Channel {
  if (!channel.startsWith(IPC_PREFIX) || !KNOWN.has(channel)) throw new IpcValidationError('bad_channel', `unknown channel ${channel}`);
}

/**
 * The sender must be the top frame of a window showing the app's own origin (no iframe, no page
 * that navigated elsewhere). @throws IpcValidationError bad_sender | bad_origin
 */
export function checkSender(e: SenderInfo, isAllowedOrigin: (url: string) => boolean): void {
  const f = e.senderFrame;
  if (!f) throw new IpcValidationError('bad_sender', 'the sending frame is gone');
  if (f.parent !== null) throw new IpcValidationError('bad_sender', 'only the top frame may call the shell');
  if (!isAllowedOrigin(f.url)) throw new IpcValidationError('bad_origin', 'the sending frame is not the app');
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const onlyKeys = (v: Record<string, unknown>, keys: string[]): boolean => Object.keys(v).every((k) => keys.includes(k));

function secretName(v: unknown): SecretName {
  if (typeof v !== 'string' || !(SECRET_NAMES as readonly string[]).includes(v)) throw new IpcValidationError('bad_payload', 'unknown secret name');
  return v as SecretName;
}

/** Longest content `saveFile` writes (a receipt bundle is far smaller). */
export const MAX_SAVE_BYTES = 50 * 1024 * 1024;
/** Longest secret value. */
export const MAX_SECRET_CHARS = 16 * 1024;

/**
 * Check the payload of `channel` and return it typed. Unknown keys, wrong types, path separators in
 * file names and oversize values are refused. @throws IpcValidationError bad_payload
 */
export function checkPayload<C extends Channel>(channel: C, payload: unknown): ChannelTypes[C]['req'] {
  const bad = (why: string): never => { throw new IpcValidationError('bad_payload', `${channel}: ${why}`); };
  switch (channel) {
    case CHANNELS.connectionInfo:
    case CHANNELS.installerHandoff:
    case CHANNELS.signIn:
      if (payload !== undefined && payload !== null) bad('takes no arguments');
      return undefined as ChannelTypes[C]['req'];
    case CHANNELS.keychainGet:
    case CHANNELS.keychainDelete: {
      if (!isObj(payload) || !onlyKeys(payload, ['name'])) bad('expects {name}');
      return { name: secretName((payload as Record<string, unknown>).name) } as ChannelTypes[C]['req'];
    }
    case CHANNELS.keychainSet: {
      if (!isObj(payload) || !onlyKeys(payload, ['name', 'value'])) bad('expects {name, value}');
      const p = payload as Record<string, unknown>;
      if (typeof p.value !== 'string' || p.value.length === 0 || p.value.length > MAX_SECRET_CHARS) bad('value must be a non-empty string');
      return { name: secretName(p.name), value: p.value } as ChannelTypes[C]['req'];
    }
    case CHANNELS.saveFile: {
      if (!isObj(payload) || !onlyKeys(payload, ['suggestedName', 'content', 'filter'])) bad('expects {suggestedName, content, filter?}');
      const p = payload as Record<string, unknown>;
      const name = p.suggestedName;
      if (typeof name !== 'string' || name.length === 0 || name.length > 200 || /[/\\\0:]/.test(name) || name === '.' || name === '..') bad('suggestedName must be a plain file name');
      if (typeof p.content !== 'string' || Buffer.byteLength(p.content, 'utf8') > MAX_SAVE_BYTES) bad('content must be a string of at most 50 MB');
      let filter: { name: string; extensions: string[] } | undefined;
      if (p.filter !== undefined) {
        const f = p.filter;
        if (!isObj(f) || typeof f.name !== 'string' || !Array.isArray(f.extensions) || f.extensions.length > 10
          || !f.extensions.every((x) => typeof x === 'string' && /^[a-z0-9]{1,10}$/i.test(x))) bad('filter must be {name, extensions: [...]}');
        filter = { name: String((f as Record<string, unknown>).name).slice(0, 60), extensions: (f as { extensions: string[] }).extensions };
      }
      return { suggestedName: name as string, content: p.content as string, ...(filter ? { filter } : {}) } as ChannelTypes[C]['req'];
    }
    case CHANNELS.openExternal: {
      if (!isObj(payload) || !onlyKeys(payload, ['url']) || typeof payload.url !== 'string' || payload.url.length > 4096) bad('expects {url}');
      return { url: (payload as { url: string }).url } as ChannelTypes[C]['req'];
    }
    default:
      return bad('unknown channel');
  }
}
