/**
 * The object store on an S3-compatible bucket (issue 21 item 4; DESIGN.md "Real parts": object store,
 * "S3-compatible"), through the AWS SDK v3 (`@aws-sdk/client-s3`). Same content-addressed layout
 * as the local folder (`./object-store.ts`): blob `ab12…ef` is the key
 * `<prefix>/sha256/ab/12…ef`, so a folder can be copied into a bucket as it is (`aws s3 sync
 * objects/ s3://bucket/prefix/`).
 *
 * Writes are whole-object PUTs of bytes whose digest is known first (`putStream` stages the stream
 * in a private temp file while hashing it), so a blob is either whole or absent, and two writers of
 * the same content write the same bytes under the same key. Checksums: only where the protocol
 * requires them (`requestChecksumCalculation: 'WHEN_REQUIRED'`), so servers that do not speak the
 * SDK's default CRC32 trailers (s3rver, older MinIO, Ceph) work; integrity is the sha256 key.
 *
 * API: the async twin of `ObjectStore` (`AsyncObjectStore`): `put`, `putStream`, `get`, `open`,
 * `has`, `size`, `delete`. An invalid digest never reaches the network ("absent"). Errors other
 * than "not found" (credentials, network, bucket missing) reject with the SDK's error; their
 * messages carry no credentials.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable, Transform } from 'node:stream';
import {
  DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { isSha256Hex, OBJECT_LAYOUT_ROOT, type ObjectRef } from './object-store.js';
import type { S3ObjectStoreSettings } from './settings.js';

/** The asynchronous object store surface both back ends offer (the local folder through `asyncLocal`). */
export interface AsyncObjectStore {
  /** Store `bytes` (no-op when present). @returns sha256 and size. */
  put(bytes: Uint8Array): Promise<ObjectRef>;
  /** Store a stream's bytes without holding them in memory. @returns sha256 and size. */
  putStream(source: Readable | AsyncIterable<Uint8Array>): Promise<ObjectRef>;
  /** The bytes, or null when absent. */
  get(sha256: string): Promise<Buffer | null>;
  /** A read stream and its size, or null when absent. */
  open(sha256: string): Promise<{ stream: Readable; size: number } | null>;
  /** Whether the blob is present. */
  has(sha256: string): Promise<boolean>;
  /** Size in bytes, or null when absent. */
  size(sha256: string): Promise<number | null>;
  /** Remove the blob. @returns true when one was removed (S3: true when it existed before). */
  delete(sha256: string): Promise<boolean>;
  /** Release connections. */
  close(): Promise<void>;
}

function notFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

/** `AsyncObjectStore` over an S3-compatible bucket. */
export class S3ObjectStore implements AsyncObjectStore {
  private readonly client: S3Client;
  private readonly prefix: string;

  /** @param settings from `SVC_OBJECT_STORE_URL` (main/config/scale-out.ts). */
  constructor(readonly settings: S3ObjectStoreSettings) {
    const cfg: S3ClientConfig = {
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
    };
    this.client = new S3Client(cfg);
    this.prefix = settings.prefix ? `${settings.prefix}/` : '';
  }

  /**
   * The object key of blob `sha256`.
   * @throws TypeError when `sha256` is not a lowercase hex sha256 digest.
   */
  keyOf(sha256: string): string {
    if (!isSha256Hex(sha256)) throw new TypeError('not a sha256 hex digest');
    return `${this.prefix}${OBJECT_LAYOUT_ROOT}/${sha256.slice(0, 2)}/${sha256.slice(2)}`;
  }

  async put(bytes: Uint8Array): Promise<ObjectRef> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (!(await this.has(sha256))) {
      await this.client.send(new PutObjectCommand({
        Bucket: this.settings.bucket, Key: this.keyOf(sha256), Body: bytes, ContentLength: bytes.length, ContentType: 'application/octet-stream',
      }));
    }
    return { sha256, size: bytes.length };
  }

  async putStream(source: Readable | AsyncIterable<Uint8Array>): Promise<ObjectRef> {
    // The key is the digest, known only at the end: stage in a private temp folder, then PUT.
    const dir = mkdtempSync(join(tmpdir(), 'svc-s3-'));
    const tmp = join(dir, `blob-${randomBytes(6).toString('hex')}`);
    const hash = createHash('sha256');
    let size = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, done) { hash.update(chunk); size += chunk.length; done(null, chunk); },
    });
    try {
      await pipeline(source, tap, createWriteStream(tmp, { mode: 0o600, flags: 'wx' }));
      const sha256 = hash.digest('hex');
      if (!(await this.has(sha256))) {
        await this.client.send(new PutObjectCommand({
          Bucket: this.settings.bucket, Key: this.keyOf(sha256), Body: createReadStream(tmp), ContentLength: statSync(tmp).size, ContentType: 'application/octet-stream',
        }));
      }
      return { sha256, size };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  async get(sha256: string): Promise<Buffer | null> {
    const o = await this.open(sha256);
    if (!o) return null;
    const parts: Buffer[] = [];
    for await (const c of o.stream) parts.push(c as Buffer);
    return Buffer.concat(parts);
  }

  async open(sha256: string): Promise<{ stream: Readable; size: number } | null> {
    if (!isSha256Hex(sha256)) return null;
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(sha256) }));
      const body = r.Body as Readable | undefined;
      if (!body) return null;
      return { stream: body instanceof Readable ? body : Readable.from(body as AsyncIterable<Uint8Array>), size: Number(r.ContentLength ?? 0) };
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
  }

  async has(sha256: string): Promise<boolean> {
    return (await this.size(sha256)) !== null;
  }

  async size(sha256: string): Promise<number | null> {
    if (!isSha256Hex(sha256)) return null;
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(sha256) }));
      return Number(r.ContentLength ?? 0);
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
  }

  async delete(sha256: string): Promise<boolean> {
    if (!(await this.has(sha256))) return false;
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(sha256) }));
    return true;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
