/**
 * The encrypted backup archive (issue 19 item 2): scrypt (node:crypto, RFC 7914) derives a 256-bit
 * key from the admin's passphrase, and the payload is sealed with AES-256-GCM in 1 MiB chunks
 * following the STREAM construction (Hoang, Reyhanitabar, Rogaway, Vizár 2015): each chunk's nonce
 * is an 8-byte random prefix plus its 32-bit index, and its additional data binds the header hash,
 * the index and a last-chunk flag, so reordered, dropped, truncated or edited chunks are refused.
 *
 * File layout: `SVCBAK1\n`, one JSON header line (`BackupHeader`), then frames `[u32 BE length][ciphertext || 16-byte tag]`.
 * A key-check value in the header (HMAC-SHA256 of a fixed label under the derived key) tells a wrong
 * passphrase (400 `bad_passphrase`) from a tampered body (400 `archive_tampered`).
 *
 * The plaintext is a sequence of entries `[u32 BE name length][name utf-8][u64 BE size][bytes]`
 * (`encodeEntryHead`), written and read by the backup store.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../../../shared/kit/domain-error.js';

/** The archive's magic first line. */
export const ARCHIVE_MAGIC = 'SVCBAK1\n';
/** Plaintext bytes per sealed chunk. */
export const CHUNK_BYTES = 1024 * 1024;
const TAG = 16;
const KEY_CHECK_LABEL = 'svc-backup key check v1';

/** The archive's clear header: KDF parameters, nonce prefix, key check and when it was made. */
export interface BackupHeader {
  v: 1;
  id: string;
  created_at: string;
  kdf: { name: 'scrypt'; N: number; r: number; p: number; salt: string };
  cipher: 'aes-256-gcm-stream';
  nonce_prefix: string;
  key_check: string;
}

/** scrypt cost: N=2^15, r=8, p=1 (32 MiB, ~100 ms). */
const KDF = { N: 1 << 15, r: 8, p: 1 };

/** Derive the archive key. @throws never for a well-formed header. */
export function deriveKey(passphrase: string, kdf: BackupHeader['kdf']): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(passphrase.normalize('NFC'), Buffer.from(kdf.salt, 'base64'), 32, { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: 256 * kdf.N * kdf.r + 1024 * 1024 }, (err, key) => {
      if (err) reject(err); else resolve(key);
    });
  });
}

const keyCheck = (key: Buffer): string => createHmac('sha256', key).update(KEY_CHECK_LABEL).digest('base64');

/** A new header and its key for `passphrase`. */
export async function newHeader(id: string, createdAt: string, passphrase: string): Promise<{ header: BackupHeader; key: Buffer }> {
  const kdf = { name: 'scrypt' as const, ...KDF, salt: randomBytes(16).toString('base64') };
  const key = await deriveKey(passphrase, kdf);
  return { key, header: { v: 1, id, created_at: createdAt, kdf, cipher: 'aes-256-gcm-stream', nonce_prefix: randomBytes(8).toString('base64'), key_check: keyCheck(key) } };
}

/** The header's serialized first two lines. */
export function headerBytes(header: BackupHeader): Buffer {
  return Buffer.from(`${ARCHIVE_MAGIC}${JSON.stringify(header)}\n`, 'utf8');
}

function chunkParams(header: BackupHeader, index: number, last: boolean): { iv: Buffer; aad: Buffer } {
  const iv = Buffer.alloc(12);
  Buffer.from(header.nonce_prefix, 'base64').copy(iv, 0, 0, 8);
  iv.writeUInt32BE(index, 8);
  const aad = Buffer.alloc(32 + 5);
  createHash('sha256').update(JSON.stringify(header)).digest().copy(aad, 0);
  aad.writeUInt32BE(index, 32);
  aad.writeUInt8(last ? 1 : 0, 36);
  return { iv, aad };
}

/** Seal chunk `index` (`last` for the final one) into a frame `[u32 length][ciphertext||tag]`. */
export function sealChunk(key: Buffer, header: BackupHeader, index: number, plain: Buffer, last: boolean): Buffer {
  const { iv, aad } = chunkParams(header, index, last);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(aad);
  const body = Buffer.concat([c.update(plain), c.final(), c.getAuthTag()]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length, 0);
  return Buffer.concat([len, body]);
}

/** Open one frame body. @throws DomainError `archive_tampered` when it does not authenticate. */
export function openChunk(key: Buffer, header: BackupHeader, index: number, body: Buffer, last: boolean): Buffer {
  if (body.length < TAG) throw tampered();
  const { iv, aad } = chunkParams(header, index, last);
  const d = createDecipheriv('aes-256-gcm', key, iv);
  d.setAAD(aad);
  d.setAuthTag(body.subarray(body.length - TAG));
  try {
    return Buffer.concat([d.update(body.subarray(0, body.length - TAG)), d.final()]);
  } catch {
    throw tampered();
  }
}

/** 400 `archive_tampered`. */
export const tampered = (): DomainError => new DomainError('archive_tampered', 'the backup archive does not authenticate: it was changed, cut short or is not a backup archive');

/**
 * Parse the header from the start of an archive. @returns the header and the offset of the first frame.
 * @throws DomainError `archive_tampered` when the magic or header is malformed.
 */
export function parseHeader(start: Buffer): { header: BackupHeader; offset: number } {
  if (start.subarray(0, ARCHIVE_MAGIC.length).toString('latin1') !== ARCHIVE_MAGIC) throw tampered();
  const nl = start.indexOf(0x0a, ARCHIVE_MAGIC.length);
  if (nl < 0) throw tampered();
  let header: BackupHeader;
  try { header = JSON.parse(start.subarray(ARCHIVE_MAGIC.length, nl).toString('utf8')) as BackupHeader; } catch { throw tampered(); }
  const k = header?.kdf;
  if (header?.v !== 1 || k?.name !== 'scrypt' || !Number.isInteger(k.N) || k.N < 1024 || k.N > 1 << 20 || (k.N & (k.N - 1)) !== 0
    || !Number.isInteger(k.r) || k.r < 1 || k.r > 32 || !Number.isInteger(k.p) || k.p < 1 || k.p > 16 || typeof k.salt !== 'string'
    || typeof header.nonce_prefix !== 'string' || typeof header.key_check !== 'string' || typeof header.id !== 'string') throw tampered();
  return { header, offset: nl + 1 };
}

/** Derive and check the key. @throws DomainError `bad_passphrase` when the passphrase is not the archive's. */
export async function unlock(header: BackupHeader, passphrase: string): Promise<Buffer> {
  const key = await deriveKey(passphrase, header.kdf);
  const want = Buffer.from(header.key_check, 'base64');
  const got = Buffer.from(keyCheck(key), 'base64');
  if (want.length !== got.length || !timingSafeEqual(want, got)) throw new DomainError('bad_passphrase', 'the passphrase does not open this backup');
  return key;
}

/** The head of one plaintext entry: name length, name, size. */
export function encodeEntryHead(name: string, size: number): Buffer {
  const n = Buffer.from(name, 'utf8');
  const b = Buffer.alloc(4 + n.length + 8);
  b.writeUInt32BE(n.length, 0);
  n.copy(b, 4);
  b.writeBigUInt64BE(BigInt(size), 4 + n.length);
  return b;
}

/**
 * An archive entry name is safe to extract: relative, `/`-separated, no `..`, no empty or dot segments.
 */
export function safeEntryName(name: string): boolean {
  if (!name || name.length > 1024 || name.startsWith('/') || name.includes('\\') || name.includes('\0')) return false;
  return name.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}
