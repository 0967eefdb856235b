/**
 * A real S3-compatible server for tests (issue 21 item 4): s3rver (npm dev dependency) on an
 * ephemeral loopback port with a temp directory and one bucket, `svc-objects`. s3rver keeps each
 * object as a file `<dir>/<bucket>/<key>._S3rver_object`, so a test can check the key layout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error -- s3rver ships no type declarations
import S3rver from 's3rver';
import { freePort } from '../../main/supervisor/index.js';

interface S3rverInstance { run(): Promise<unknown>; close(): Promise<void> }

/** A running s3rver. */
export interface TestS3 {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** Where s3rver keeps its files. */
  dir: string;
  /** The bucket created at start. */
  bucket: string;
  /** Stop the server and delete its files. */
  stop(): Promise<void>;
}

/** Start s3rver with bucket `svc-objects`. */
export async function startS3rver(): Promise<TestS3> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-s3rver-'));
  const port = await freePort('127.0.0.1');
  const bucket = 'svc-objects';
  const server = new (S3rver as new (o: object) => S3rverInstance)({ port, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`, dir, bucket,
    stop: async () => { await server.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}
