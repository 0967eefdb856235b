/**
 * Files a tool call produced (issue 12 item 6, "Artifacts": a sandbox run's figures and output
 * files): checked and bounded, committed by sha256 in the call's `tool_returned` event, stored
 * through audit (`POST /v1/audit/artifacts` as the runtime's service, under that event's id), and
 * announced to the client by ONE `artifact` event `{call_id, artifacts: [{name, mime, bytes,
 * sha256, url}]}` whose `url` is the audit route the user fetches the bytes from
 * (`/v1/audit/turns/{turn_id}/artifacts/{event_id}/{kind}`, through the gateway).
 *
 * The runtime trusts no size or digest a tool states: `bytes` and `sha256` are recomputed from the
 * bytes it stores, and audit checks the digest again on upload. Bytes are stored with their MIME
 * type only when it is an inert type (images, plain text, CSV, JSON, PDF); anything a browser could
 * run (HTML, SVG, JavaScript) is stored as `application/octet-stream`.
 */
import { createHash } from 'node:crypto';
import { MAX_TOOL_FILE_BYTES, MAX_TOOL_FILES, MAX_TOOL_FILES_TOTAL_BYTES, type ToolFile, type ToolFileRef } from '../../contracts.js';
import type { ChatDeps } from './turn.js';

/** A file as the runtime stores it: bytes recomputed, its artifact kind and stored content type. */
export interface CheckedFile {
  name: string;
  /** The MIME type the tool reported. */
  mime: string;
  bytes: number;
  /** Lowercase hex SHA-256 of the bytes, computed here. */
  sha256: string;
  /** Audit artifact kind (`file-<n>-<safe name>`, audit's ARTIFACT_KIND_PATTERN). */
  kind: string;
  /** Content type audit serves the bytes with. */
  contentType: string;
  base64: string;
}

/** Files kept and why the others were dropped. */
export interface CheckedFiles {
  kept: CheckedFile[];
  /** One line per dropped file (name and reason). */
  dropped: string[];
}

/** MIME types stored as they are (nothing a browser executes). */
const INERT_TYPES = new Set([
  'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp',
  'text/plain', 'text/csv', 'text/tab-separated-values', 'text/markdown', 'application/json', 'application/pdf',
]);

/** The content type audit stores a file with: its MIME type when inert, else `application/octet-stream`. */
export function storedContentType(mime: string): string {
  const base = mime.split(';')[0]!.trim().toLowerCase();
  return INERT_TYPES.has(base) ? base : 'application/octet-stream';
}

/**
 * The artifact kind of the `n`-th file of a call (1-based): `file-<n>-<base name>` lowercased, other
 * characters than `a-z0-9_.-` replaced by `-`, at most 64 characters (audit's ARTIFACT_KIND_PATTERN
 * `^[a-z0-9][a-z0-9_.-]{0,63}$`); unique within the call by its number.
 */
export function fileKind(n: number, name: string): string {
  const prefix = `file-${n}`;
  const base = (name.split('/').pop() ?? '').toLowerCase().replace(/[^a-z0-9_.-]+/g, '-').replace(/^[-.]+/, '');
  return base ? `${prefix}-${base}`.slice(0, 64) : prefix;
}

/**
 * Check a tool's files: at most `MAX_TOOL_FILES`, each at most `MAX_TOOL_FILE_BYTES`, together at most
 * `MAX_TOOL_FILES_TOTAL_BYTES`; sizes and digests recomputed from the bytes. Pure.
 */
export function checkFiles(files: readonly ToolFile[]): CheckedFiles {
  const kept: CheckedFile[] = [];
  const dropped: string[] = [];
  let total = 0;
  for (const f of files) {
    const name = typeof f?.name === 'string' && f.name ? f.name : `file-${kept.length + 1}`;
    if (typeof f?.content_base64 !== 'string') { dropped.push(`${name}: no content`); continue; }
    if (kept.length >= MAX_TOOL_FILES) { dropped.push(`${name}: more than ${MAX_TOOL_FILES} files in one call`); continue; }
    const buf = Buffer.from(f.content_base64, 'base64');
    if (buf.length > MAX_TOOL_FILE_BYTES) { dropped.push(`${name}: larger than ${MAX_TOOL_FILE_BYTES} bytes`); continue; }
    if (total + buf.length > MAX_TOOL_FILES_TOTAL_BYTES) { dropped.push(`${name}: the call's files exceed ${MAX_TOOL_FILES_TOTAL_BYTES} bytes together`); continue; }
    total += buf.length;
    const mime = typeof f.mime === 'string' && f.mime ? f.mime : 'application/octet-stream';
    kept.push({
      name, mime, bytes: buf.length, sha256: createHash('sha256').update(buf).digest('hex'),
      kind: fileKind(kept.length + 1, name), contentType: storedContentType(mime), base64: buf.toString('base64'),
    });
  }
  return { kept, dropped };
}

/** What `tool_returned` commits of each file: `{name, mime, bytes, sha256, kind}`. */
export function committedFiles(files: readonly CheckedFile[]): Array<{ name: string; mime: string; bytes: number; sha256: string; kind: string }> {
  return files.map((f) => ({ name: f.name, mime: f.mime, bytes: f.bytes, sha256: f.sha256, kind: f.kind }));
}

/** The audit route of a stored file's bytes. */
export function artifactUrl(turnId: string, eventId: string, kind: string): string {
  return `/v1/audit/turns/${encodeURIComponent(turnId)}/artifacts/${encodeURIComponent(eventId)}/${kind}`;
}

/**
 * Store each file through audit under the `tool_returned` event `eventId` (in parallel, awaited, so
 * a client that fetches a `url` as soon as it sees the `artifact` event finds the bytes).
 * @returns the refs to announce; `url` null for a file not stored (no turn id, or audit refused or
 *   was unreachable). Never throws.
 */
export async function storeFiles(d: Pick<ChatDeps, 'audit' | 'log'>, turnId: string | null, eventId: string | null, files: readonly CheckedFile[]): Promise<ToolFileRef[]> {
  return Promise.all(files.map(async (f) => {
    let url: string | null = null;
    if (turnId && eventId) {
      const ok = await d.audit.putArtifact(turnId, eventId, f.kind, f.base64, f.contentType, 'base64').catch(() => false);
      if (ok) url = artifactUrl(turnId, eventId, f.kind);
      else d.log.warn({ turn_id: turnId, kind: f.kind, bytes: f.bytes }, 'a tool file could not be stored in audit');
    }
    return { name: f.name, mime: f.mime, bytes: f.bytes, sha256: f.sha256, url };
  }));
}
