/**
 * C2SP signed notes and transparency-log checkpoints (issue 22 item 3; https://c2sp.org/signed-note,
 * https://c2sp.org/tlog-checkpoint). Pure, Node-free: used by audit to write checkpoints and by the
 * verifier (CLI, renderer) to read them. Signatures themselves are made and checked by the host
 * (node:crypto, WebCrypto or @noble/ed25519); this module only formats, parses and derives key hashes.
 *
 * A note is `text` (non-empty UTF-8 lines, each ending in "\n"), one blank line, then one or more
 * signature lines `— <key name> <base64(key hash (4 bytes, big-endian) || signature)>\n`. Every
 * signature covers exactly the bytes of `text`. For Ed25519 the key hash is the first 4 bytes of
 * SHA-256(key name || "\n" || 0x01 || 32-byte public key).
 *
 * A checkpoint's text is `<origin>\n<tree size, decimal>\n<base64 root hash>\n` then optional
 * extension lines. Our audit chain is a hash chain, not a Merkle tree: the "tree size" is the head
 * row's `seq` (the tenant chain's row count) and the hash is that row's `chain_hash` (docs/receipt-format-v2.md).
 */
import type { HashProvider } from './hash.js';
import { utf8 } from './hash.js';

/** A parse or format failure of a note or checkpoint. */
export class NoteError extends Error {
  constructor(message: string) { super(message); this.name = 'NoteError'; }
}

/** The em dash and space that open a signature line (U+2014 U+0020). */
export const NOTE_SIG_PREFIX = '\u2014 ';
/** Signature type byte of Ed25519 in signed-note key hashes and verifier keys. */
export const NOTE_ALG_ED25519 = 0x01;
/** Most signature lines a note may carry when parsed. */
export const MAX_NOTE_SIGNATURES = 100;

/** One signature line of a note. */
export interface NoteSignature {
  /** The key name (no whitespace, no "+"). */
  name: string;
  /** The 4-byte key hash as an unsigned 32-bit integer. */
  keyHash: number;
  /** The signature bytes after the key hash (64 for Ed25519). */
  sig: Uint8Array;
}

/** A parsed note: the signed text (ending in "\n") and its signature lines. */
export interface Note { text: string; sigs: NoteSignature[] }

/** A checkpoint body. */
export interface Checkpoint {
  origin: string;
  /** Tree size; for the audit chain the head row's `seq`. */
  size: number;
  /** The root hash bytes (32); for the audit chain the head row's `chain_hash`. */
  hash: Uint8Array;
  /** Extension lines in order, without their "\n" (e.g. `timestamp 2026-11-24T07:00:00.000Z`). */
  extensions: string[];
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = new Map([...B64].map((c, i) => [c, i] as const));

/** Standard base64 with padding (RFC 4648 section 4). */
export function base64Encode(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!, b = bytes[i + 1], c = bytes[i + 2];
    const n = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]! + (b === undefined ? '=' : B64[(n >> 6) & 63]!) + (c === undefined ? '=' : B64[n & 63]!);
  }
  return out;
}

/**
 * Decode base64: standard (padded, as in notes) or, with `url` set, base64url without padding (as in
 * JWKs and `public_signature.sig`). @throws NoteError on characters or lengths outside the alphabet.
 */
export function base64Decode(s: string, url = false): Uint8Array {
  let t = s;
  if (url) {
    if (/[+/=]/.test(t)) throw new NoteError('not base64url');
    t = t.replace(/-/g, '+').replace(/_/g, '/');
    if (t.length % 4 === 1) throw new NoteError('bad base64url length');
    while (t.length % 4 !== 0) t += '=';
  } else if (t.length % 4 !== 0) throw new NoteError('bad base64 length');
  const pad = t.endsWith('==') ? 2 : t.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((t.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < t.length; i += 4) {
    let n = 0;
    for (let j = 0; j < 4; j++) {
      const ch = t[i + j]!;
      if (ch === '=') { if (i + j < t.length - pad) throw new NoteError('misplaced base64 padding'); n <<= 6; continue; }
      const v = B64_INDEX.get(ch);
      if (v === undefined) throw new NoteError('not base64');
      n = (n << 6) | v;
    }
    if (o < out.length) out[o++] = (n >> 16) & 255;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  // Canonical form only: re-encoding must give the same text.
  const back = base64Encode(out);
  if ((url ? base64UrlFromStd(back) : back) !== s) throw new NoteError('non-canonical base64');
  return out;
}

function base64UrlFromStd(s: string): string {
  return s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** base64url without padding (RFC 4648 section 5), as in JWKs. */
export function base64UrlEncode(bytes: Uint8Array): string {
  return base64UrlFromStd(base64Encode(bytes));
}

/** Whether `name` is a valid key name: non-empty, no Unicode whitespace, no "+". */
export function isValidKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+]/u.test(name) && !/[\u0000-\u001f\u007f]/.test(name);
}

/**
 * The signed-note key hash of an Ed25519 key: the first 4 bytes of
 * SHA-256(name || 0x0A || 0x01 || publicKey), big-endian, as an unsigned integer.
 */
export function noteKeyHash(name: string, publicKey: Uint8Array, hp: HashProvider): number {
  const n = utf8(name);
  const buf = new Uint8Array(n.length + 2 + publicKey.length);
  buf.set(n);
  buf[n.length] = 0x0a;
  buf[n.length + 1] = NOTE_ALG_ED25519;
  buf.set(publicKey, n.length + 2);
  const h = hp.sha256(buf);
  return ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
}

/**
 * The verifier key string of an Ed25519 key (`<name>+<key hash, 8 hex>+<base64(0x01 || key)>`), the
 * form Go's `golang.org/x/mod/sumdb/note` and other signed-note tools take.
 */
export function noteVerifierKey(name: string, publicKey: Uint8Array, hp: HashProvider): string {
  const k = new Uint8Array(publicKey.length + 1);
  k[0] = NOTE_ALG_ED25519;
  k.set(publicKey, 1);
  return `${name}+${noteKeyHash(name, publicKey, hp).toString(16).padStart(8, '0')}+${base64Encode(k)}`;
}

/** Check note text: non-empty, ends in "\n", no blank line, no control characters but "\n". @throws NoteError. */
export function checkNoteText(text: string): void {
  if (text.length === 0 || !text.endsWith('\n')) throw new NoteError('note text must be non-empty and end with a newline');
  if (text.startsWith('\n') || text.includes('\n\n')) throw new NoteError('note text must not contain a blank line');
  if (/[\u0000-\u0009\u000b-\u001f\u007f]/.test(text)) throw new NoteError('note text must not contain control characters');
}

/** One signature line (with its "\n"). @throws NoteError on a bad key name or key hash. */
export function signatureLine(name: string, keyHash: number, sig: Uint8Array): string {
  if (!isValidKeyName(name)) throw new NoteError(`invalid key name ${JSON.stringify(name)}`);
  if (!Number.isInteger(keyHash) || keyHash < 0 || keyHash > 0xffffffff) throw new NoteError('key hash must be a 32-bit unsigned integer');
  const b = new Uint8Array(4 + sig.length);
  b[0] = keyHash >>> 24; b[1] = (keyHash >>> 16) & 255; b[2] = (keyHash >>> 8) & 255; b[3] = keyHash & 255;
  b.set(sig, 4);
  return `${NOTE_SIG_PREFIX}${name} ${base64Encode(b)}\n`;
}

/** A whole note: text, a blank line, the signature lines. @throws NoteError on bad text or no signature. */
export function formatNote(text: string, sigs: readonly NoteSignature[]): string {
  checkNoteText(text);
  if (sigs.length === 0) throw new NoteError('a note needs at least one signature');
  return `${text}\n${sigs.map((s) => signatureLine(s.name, s.keyHash, s.sig)).join('')}`;
}

/**
 * Parse a signed note into its text and signature lines (signatures are not checked here).
 * @throws NoteError on anything that is not a well-formed note.
 */
export function parseNote(msg: string): Note {
  if (msg.length > 1_000_000) throw new NoteError('note too large');
  const split = msg.lastIndexOf('\n\n');
  if (split < 0) throw new NoteError('no blank line between text and signatures');
  const text = msg.slice(0, split + 1);
  const sigBlock = msg.slice(split + 2);
  checkNoteText(text);
  if (!sigBlock.endsWith('\n')) throw new NoteError('signature lines must end with a newline');
  const lines = sigBlock.slice(0, -1).split('\n');
  if (lines.length > MAX_NOTE_SIGNATURES) throw new NoteError('too many signature lines');
  const sigs = lines.map((line) => {
    if (!line.startsWith(NOTE_SIG_PREFIX)) throw new NoteError('a signature line must start with "\u2014 "');
    const rest = line.slice(NOTE_SIG_PREFIX.length);
    const sp = rest.indexOf(' ');
    if (sp < 0) throw new NoteError('malformed signature line');
    const name = rest.slice(0, sp);
    if (!isValidKeyName(name)) throw new NoteError(`invalid key name ${JSON.stringify(name)}`);
    const raw = base64Decode(rest.slice(sp + 1));
    if (raw.length < 5) throw new NoteError('signature too short');
    const keyHash = ((raw[0]! << 24) | (raw[1]! << 16) | (raw[2]! << 8) | raw[3]!) >>> 0;
    return { name, keyHash, sig: raw.slice(4) };
  });
  return { text, sigs };
}

/** The text of a checkpoint (origin, size, base64 hash, extension lines). @throws NoteError on bad fields. */
export function formatCheckpointText(cp: Checkpoint): string {
  if (!cp.origin || /[\n]/.test(cp.origin)) throw new NoteError('checkpoint origin must be one non-empty line');
  if (!Number.isSafeInteger(cp.size) || cp.size < 0) throw new NoteError('checkpoint size must be a non-negative integer');
  for (const e of cp.extensions) if (!e || e.includes('\n')) throw new NoteError('extension lines must be non-empty single lines');
  const text = [cp.origin, String(cp.size), base64Encode(cp.hash), ...cp.extensions].join('\n') + '\n';
  checkNoteText(text);
  return text;
}

/** Parse checkpoint text. @throws NoteError when the three mandatory lines are missing or malformed. */
export function parseCheckpointText(text: string): Checkpoint {
  checkNoteText(text);
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) throw new NoteError('a checkpoint has at least three lines');
  const [origin, sizeLine, hashLine, ...extensions] = lines as [string, string, string, ...string[]];
  if (!/^(0|[1-9][0-9]*)$/.test(sizeLine)) throw new NoteError('checkpoint size must be a decimal without leading zeros');
  const size = Number(sizeLine);
  if (!Number.isSafeInteger(size)) throw new NoteError('checkpoint size out of range');
  const hash = base64Decode(hashLine);
  if (hash.length !== 32) throw new NoteError('checkpoint hash must be 32 bytes');
  return { origin, size, hash, extensions };
}

/** The value of the first extension line `<key> <value>`, or null. */
export function checkpointExtension(cp: Checkpoint, key: string): string | null {
  const line = cp.extensions.find((e) => e.startsWith(`${key} `));
  return line === undefined ? null : line.slice(key.length + 1);
}
