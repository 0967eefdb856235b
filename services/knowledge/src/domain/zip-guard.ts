/**
 * Zip-bomb guard for DOCX uploads (issue 11 item 5 "Document bombs"): the ZIP central directory
 * (APPNOTE.TXT 4.3.12, 4.3.16) is read BEFORE anything is inflated, and an archive whose entries
 * declare more than `maxExpandedBytes` in total is refused at once. The declared sizes are then
 * checked against the truth: each entry is inflated with `maxOutputLength` one byte above its
 * declared size as its ceiling, so an entry that lies about its size is cut there and refused,
 * and the archive never expands beyond the limit in total.
 *
 * Own code rather than a library: jszip (mammoth's reader) shows entry sizes only through a private
 * field, and the project ships no other ZIP reader. The directory format is small and bounded.
 * ZIP64 archives (over 65,535 entries or 4 GiB) are not read: a Word document never needs them.
 *
 * Errors: `ParseError` for a file that is not a readable ZIP, `DocumentLimitError` for the limits.
 */
import { inflateRawSync } from 'node:zlib';
import { DocumentLimitError, ParseError } from './parse-errors.js';

/** Most entries a DOCX may hold (Word writes tens; a document with many images a few thousand). */
export const MAX_ZIP_ENTRIES = 10_000;

const EOCD_SIG = 0x06054b50;
const CEN_SIG = 0x02014b50;
const LOC_SIG = 0x04034b50;
const EOCD_LEN = 22;
const CEN_LEN = 46;
const LOC_LEN = 30;

/** One entry of the central directory: its name, method (0 stored, 8 deflated) and declared sizes, bytes. */
export interface ZipEntry {
  name: string;
  method: number;
  /** General purpose flags (bit 0: encrypted). */
  flags: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Offset of the entry's local header from the start of the file. */
  localOffset: number;
}

/** What the guard measured: entries and their declared (and verified) expanded size, bytes. */
export interface ZipExpansion { entries: number; expandedBytes: number }

const unreadable = (): ParseError => new ParseError('the DOCX file could not be read (not a valid Word document)');

/**
 * The entries of the ZIP central directory of `bytes`, read without inflating anything.
 * @throws ParseError when there is no well-formed directory, for ZIP64 and multi-disk archives,
 *   and when the directory lists more than `MAX_ZIP_ENTRIES` entries.
 */
export function readZipDirectory(bytes: Buffer): ZipEntry[] {
  // The end record is the last 22 bytes plus a comment of at most 65,535 bytes.
  const floor = Math.max(0, bytes.length - EOCD_LEN - 0xffff);
  let eocd = -1;
  for (let i = bytes.length - EOCD_LEN; i >= floor; i--) {
    if (bytes.readUInt32LE(i) === EOCD_SIG && i + EOCD_LEN + bytes.readUInt16LE(i + 20) <= bytes.length) { eocd = i; break; }
  }
  if (eocd < 0) throw unreadable();
  const disk = bytes.readUInt16LE(eocd + 4);
  const cdDisk = bytes.readUInt16LE(eocd + 6);
  const onDisk = bytes.readUInt16LE(eocd + 8);
  const total = bytes.readUInt16LE(eocd + 10);
  const cdSize = bytes.readUInt32LE(eocd + 12);
  const cdOffset = bytes.readUInt32LE(eocd + 16);
  if (total === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) throw new ParseError('the DOCX file is a ZIP64 archive, which Word documents never need');
  if (disk !== 0 || cdDisk !== 0 || onDisk !== total) throw unreadable();
  if (total > MAX_ZIP_ENTRIES) throw new ParseError(`the DOCX file holds ${total} parts, more than a Word document has (at most ${MAX_ZIP_ENTRIES})`);
  if (cdOffset + cdSize > eocd) throw unreadable();
  const entries: ZipEntry[] = [];
  let p = cdOffset;
  for (let n = 0; n < total; n++) {
    if (p + CEN_LEN > eocd || bytes.readUInt32LE(p) !== CEN_SIG) throw unreadable();
    const nameLen = bytes.readUInt16LE(p + 28);
    const extraLen = bytes.readUInt16LE(p + 30);
    const commentLen = bytes.readUInt16LE(p + 32);
    const entry: ZipEntry = {
      flags: bytes.readUInt16LE(p + 8),
      method: bytes.readUInt16LE(p + 10),
      compressedSize: bytes.readUInt32LE(p + 20),
      uncompressedSize: bytes.readUInt32LE(p + 24),
      localOffset: bytes.readUInt32LE(p + 42),
      name: bytes.toString('utf8', p + CEN_LEN, Math.min(eocd, p + CEN_LEN + nameLen)),
    };
    if (entry.compressedSize === 0xffffffff || entry.uncompressedSize === 0xffffffff || entry.localOffset === 0xffffffff) {
      throw new ParseError('the DOCX file is a ZIP64 archive, which Word documents never need');
    }
    entries.push(entry);
    p += CEN_LEN + nameLen + extraLen + commentLen;
  }
  return entries;
}

function entryData(bytes: Buffer, e: ZipEntry): Buffer {
  const at = e.localOffset;
  if (at + LOC_LEN > bytes.length || bytes.readUInt32LE(at) !== LOC_SIG) throw unreadable();
  const start = at + LOC_LEN + bytes.readUInt16LE(at + 26) + bytes.readUInt16LE(at + 28);
  if (start + e.compressedSize > bytes.length) throw unreadable();
  return bytes.subarray(start, start + e.compressedSize);
}

/**
 * Refuse a ZIP that would expand beyond `maxExpandedBytes`: first by the sizes its directory
 * declares (nothing inflated), then by inflating each entry with its declared size as the ceiling
 * (an entry that lies is cut there). Cost: one bounded inflation of the archive.
 * @throws DocumentLimitError over the limit or on a lying entry; ParseError when not a readable
 *   ZIP (encrypted entries, methods other than stored and deflate, truncated data).
 */
export function checkZipExpansion(bytes: Buffer, maxExpandedBytes: number): ZipExpansion {
  const limitName = 'KNOWLEDGE_MAX_EXPANDED_BYTES';
  const entries = readZipDirectory(bytes);
  const declared = entries.reduce((s, e) => s + e.uncompressedSize, 0);
  if (declared > maxExpandedBytes) {
    throw new DocumentLimitError(
      `refused: the DOCX would expand to ${declared.toLocaleString('en-US')} bytes when unpacked, above the limit of ${maxExpandedBytes.toLocaleString('en-US')} bytes (${limitName})`,
      limitName,
    );
  }
  for (const e of entries) {
    if (e.flags & 1) throw new ParseError('the DOCX file is encrypted (password-protected documents cannot be read)');
    const data = entryData(bytes, e);
    if (e.method === 0) {
      if (e.compressedSize !== e.uncompressedSize) throw unreadable();
      continue;
    }
    if (e.method !== 8) throw new ParseError('the DOCX file uses a compression method Word documents do not use');
    let out: Buffer;
    try {
      out = inflateRawSync(data, { maxOutputLength: Math.max(1, e.uncompressedSize) });
    } catch (err) {
      if (err instanceof RangeError) {
        throw new DocumentLimitError(
          `refused: a part of the DOCX expands beyond the size its ZIP directory declares (${e.uncompressedSize.toLocaleString('en-US')} bytes); such files are zip bombs (${limitName})`,
          limitName,
        );
      }
      throw unreadable();
    }
    if (out.length !== e.uncompressedSize) throw unreadable();
  }
  return { entries: entries.length, expandedBytes: declared };
}
