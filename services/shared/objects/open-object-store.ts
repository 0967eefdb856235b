/**
 * Choose the object store by configuration (issue 21 item 4): an S3-compatible bucket when the
 * service slice carries `objectStore` (main/config reads `SVC_OBJECT_STORE_URL`), else the local
 * content-addressed folder `objectsDir`, both behind `AsyncObjectStore`.
 */
import { ObjectStore } from './object-store.js';
import { S3ObjectStore, type AsyncObjectStore } from './s3-object-store.js';
import type { ObjectStoreSettings } from './settings.js';

/** The local folder store behind the async surface (same files as `ObjectStore`). */
export function asyncLocal(store: ObjectStore): AsyncObjectStore {
  return {
    put: async (bytes) => store.put(bytes),
    putStream: (source) => store.putStream(source),
    get: async (sha) => store.get(sha),
    open: async (sha) => store.open(sha),
    has: async (sha) => store.has(sha),
    size: async (sha) => store.size(sha),
    delete: async (sha) => store.delete(sha),
    close: async () => {},
  };
}

/**
 * Open the configured object store.
 * @param settings the slice's `objectStore` (null/undefined = local folder).
 * @param objectsDir `<data dir>/objects`, used when no bucket is configured.
 */
export function openObjectStore(settings: ObjectStoreSettings | null | undefined, objectsDir: string): AsyncObjectStore {
  if (settings?.kind === 's3') return new S3ObjectStore(settings);
  return asyncLocal(new ObjectStore(objectsDir));
}

/**
 * A service's blob store as its domain ports take it (issue 21 item 4): the bucket when
 * `settings` is set (its client closed through `onClose`), else the local folder, after
 * `prepareLocal` (the service's own layout migration) ran on it.
 * @param settings the slice's `objectStore`; @param objectsDir `<data dir>/objects`.
 */
export function openServiceBlobs(
  settings: ObjectStoreSettings | null | undefined, objectsDir: string,
  onClose: (fn: () => Promise<void>) => void, prepareLocal: (local: ObjectStore) => void,
): ObjectStore | S3ObjectStore {
  if (settings?.kind === 's3') {
    const bucket = new S3ObjectStore(settings);
    onClose(() => bucket.close());
    return bucket;
  }
  const local = new ObjectStore(objectsDir);
  prepareLocal(local);
  return local;
}
