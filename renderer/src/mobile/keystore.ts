/**
 * Where the phone keeps its pairing (issue 14 item 7): one IndexedDB record holding the device key
 * pair (a P-256 `CryptoKey` made with `extractable: false`, so the private key cannot be read back
 * out, not even by this app), the offline-code key (an HMAC `CryptoKey`, also non-extractable), the
 * device id, the workstation's public URL, the user it belongs to, and the mobile token pair.
 * IndexedDB stores CryptoKey objects by structured clone, keeping them non-extractable.
 */

/** The stored pairing. */
export interface Pairing {
  device_id: string;
  /** `{public_url}` from the pairing answer: the device proofs' audience is `{public_url}/dirauth/pair`. */
  public_url: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** HMAC-SHA1 (or the algorithm given at pairing) over the TOTP secret, non-extractable. */
  totpKey: CryptoKey;
  totp: { algorithm: string; digits: number; period: number };
  user: { id: string; email: string | null; name: string | null };
  access_token: string;
  refresh_token: string;
  /** The certificate fingerprint the QR code carried ('' on plain http). */
  fingerprint: string;
  paired_at: string;
}

const DB = 'svc-authenticator';
const STORE = 'pairing';
const KEY = 'current';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => { req.result.createObjectStore(STORE); };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB cannot be opened'));
  });
}

async function run<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = fn(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result as T);
      tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
    });
  } finally { db.close(); }
}

/** The stored pairing, or null. */
export async function loadPairing(): Promise<Pairing | null> {
  return (await run<Pairing | undefined>('readonly', (s) => s.get(KEY))) ?? null;
}

/** Store (or replace) the pairing. */
export async function savePairing(p: Pairing): Promise<void> {
  await run('readwrite', (s) => s.put(p, KEY));
}

/** Forget the pairing on this phone (the workstation still lists the device until it is revoked there). */
export async function forgetPairing(): Promise<void> {
  await run('readwrite', (s) => s.delete(KEY));
}
