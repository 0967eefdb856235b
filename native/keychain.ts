/**
 * The OS keychain through keytar (DESIGN.md "Real parts": secrets in the OS keychain, an encrypted
 * file when no keychain service exists, reported as such).
 *
 * keytar is an optional dependency, loaded lazily with a dynamic import so a machine without it (or
 * without libsecret) still starts. `openKeychain` probes the service once (read, write and delete
 * of a probe account, each bounded by a short timeout: on Linux a missing Secret Service makes
 * libsecret reject or hang, and a locked one answers reads but refuses writes) and answers `null`
 * when keytar is missing or no usable service answers; it never throws. Values are never logged or put in error messages by this module.
 */

/** The part of keytar used here (declared locally so the build does not need keytar's types). */
export interface KeytarLike {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
  findCredentials(service: string): Promise<Array<{ account: string; password: string }>>;
}

/** One keychain service (a namespace of accounts). */
export interface Keychain {
  readonly service: string;
  get(account: string): Promise<string | null>;
  set(account: string, value: string): Promise<void>;
  /** @returns whether an entry was deleted. */
  delete(account: string): Promise<boolean>;
  /** Every account and value of this service. */
  list(): Promise<Array<{ account: string; password: string }>>;
}

/** Options of `openKeychain` (tests inject `load`). */
export interface OpenKeychainOptions {
  /** Bound of the probe call (default 1500 ms). */
  probeTimeoutMs?: number;
  /** Bound of every later call (default 10 s): a keychain that stops answering fails the call, not the process. */
  opTimeoutMs?: number;
  /** Load keytar (default: dynamic import of `keytar`). */
  load?: () => Promise<KeytarLike>;
  /** Why the keychain is not used, when it is not (for the caller's log line; never holds values). */
  onUnavailable?: (reason: string) => void;
}

const PROBE_ACCOUNT = '__svc_keychain_probe__';

async function loadKeytar(): Promise<KeytarLike> {
  const name = 'keytar'; // a variable specifier: keytar is optional, the build must not need it
  const mod = await import(name) as { default?: KeytarLike } & Partial<KeytarLike>;
  const k = (mod.default ?? mod) as KeytarLike;
  if (typeof k.getPassword !== 'function') throw new Error('keytar has no getPassword');
  return k;
}

function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`keychain ${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Open the keychain service `service`, or `null` when keytar is missing or no keychain service
 * answers the probe. Never throws.
 */
export async function openKeychain(service: string, opts: OpenKeychainOptions = {}): Promise<Keychain | null> {
  const probeMs = opts.probeTimeoutMs ?? 1500;
  const opMs = opts.opTimeoutMs ?? 10_000;
  let kt: KeytarLike;
  try {
    kt = await (opts.load ?? loadKeytar)();
  } catch (err) {
    opts.onUnavailable?.(`keytar is not installed or does not load: ${reasonOf(err)}`);
    return null;
  }
  try {
    // A write, not only a read: a locked keyring (a Secret Service with no unlocked collection)
    // answers reads with null but refuses to create items.
    await bounded(kt.getPassword(service, PROBE_ACCOUNT), probeMs, 'probe read');
    await bounded(kt.setPassword(service, PROBE_ACCOUNT, 'probe'), probeMs, 'probe write');
    await bounded(kt.deletePassword(service, PROBE_ACCOUNT), probeMs, 'probe delete');
  } catch (err) {
    opts.onUnavailable?.(`no keychain service answers: ${reasonOf(err)}`);
    return null;
  }
  return {
    service,
    get: (account) => bounded(kt.getPassword(service, account), opMs, 'get'),
    set: (account, value) => bounded(kt.setPassword(service, account, value), opMs, 'set'),
    delete: (account) => bounded(kt.deletePassword(service, account), opMs, 'delete'),
    list: async () => (await bounded(kt.findCredentials(service), opMs, 'list')).filter((c) => c.account !== PROBE_ACCOUNT),
  };
}
