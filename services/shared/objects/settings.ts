/**
 * Which object store a service uses (issue 21 item 4): the local content-addressed folder (default,
 * `cfg.objectsDir`) or an S3-compatible bucket. main/config/scale-out.ts builds it from
 * `SVC_OBJECT_STORE_URL`; Node-free (a plain shape in the service slices).
 */

/** An S3-compatible bucket (AWS S3, MinIO, Ceph RGW, s3rver). */
export interface S3ObjectStoreSettings {
  kind: 's3';
  bucket: string;
  /** Key prefix inside the bucket, no leading or trailing slash ('' = bucket root). */
  prefix: string;
  /** Endpoint URL (e.g. http://minio:9000), or null for AWS's own. */
  endpoint: string | null;
  region: string;
  /** Path-style addressing (`endpoint/bucket/key`), as most self-hosted servers want. */
  forcePathStyle: boolean;
  /** Static credentials, or null for the AWS SDK's default provider chain. */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
}

/** The object store choice carried in a service slice (`objectStore`); absent or null = local folder. */
export type ObjectStoreSettings = S3ObjectStoreSettings;
