/**
 * The de-identification values' crypto, shared by the SQLite and PostgreSQL stores (issue 21 item 1):
 * values are looked up by an HMAC-SHA256 (hex) of their normalised key and stored AES-256-GCM
 * encrypted (iv 12 bytes, tag 16 bytes, then the ciphertext) under the 32-byte de-identification key.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { EntityType } from '../contracts.js';
import type { TurnMapping } from '../domain/deidentify.js';

/** A stored entry of a turn as `turnMappingOf` reads it. */
export interface DeidEntryRow { placeholder: string; entity_type: EntityType; value_hash: string }

/** HMAC-SHA256 of `key` under the de-identification key, hex. */
export function deidHash(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('hex');
}

/** AES-256-GCM: iv (12) | tag (16) | ciphertext. */
export function deidEncrypt(key: Buffer, value: string): Buffer {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([c.update(value, 'utf8'), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), body]);
}

/** Inverse of `deidEncrypt`. @throws Error when the blob was not sealed under `key`. */
export function deidDecrypt(key: Buffer, blob: Buffer): string {
  const d = createDecipheriv('aes-256-gcm', key, blob.subarray(0, 12));
  d.setAuthTag(blob.subarray(12, 28));
  return Buffer.concat([d.update(blob.subarray(28)), d.final()]).toString('utf8');
}

/** A turn's mapping from its stored rows (value hash -> placeholder, highest number per type). */
export function turnMappingOf(key: Buffer, rows: readonly DeidEntryRow[]): TurnMapping {
  const byHash = new Map<string, string>();
  const maxIndex = new Map<EntityType, number>();
  for (const r of rows) {
    byHash.set(r.value_hash, r.placeholder);
    const n = Number(/_(\d+)>$/.exec(r.placeholder)?.[1] ?? 0);
    if (n > (maxIndex.get(r.entity_type) ?? 0)) maxIndex.set(r.entity_type, n);
  }
  return { byKey: { get: (k) => byHash.get(deidHash(key, k)), set: (k, v) => byHash.set(deidHash(key, k), v) }, maxIndex };
}
