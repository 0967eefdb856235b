/**
 * Chat file parts (issue 12 item 7: "chart the CSV I uploaded"): a message part `{type: "file",
 * document_id}` names an uploaded knowledge document the user may read.
 *
 * - Before the turn starts (`resolveAttachments`, so a refusal answers JSON before any stream):
 *   each named document is fetched from knowledge AS THE USER (its original upload, or the extracted
 *   text of a text document). A document that does not exist or that the user may not read is 404
 *   `document_not_found`, a refusal 403 `forbidden`, one too large 413 `payload_too_large`, knowledge
 *   away 503 `service_unavailable`; nothing is copied then.
 * - Once the input guardrail let the message through (`copyAttachments`): each document is copied
 *   into the chat's sandbox workspace at `data/<file name>` through the sandbox's copy route, as the
 *   user, and the stored part records `filename` and `path` (or `error` when the copy failed: chat
 *   goes on without the file).
 * - In every prompt (`modelContent`), a file part becomes a short text note telling the model where
 *   the file is, so the model never receives a part type providers do not know.
 */
import {
  ATTACHMENT_DIR, MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS_TOTAL_BYTES, MAX_FILE_PARTS, type ChatContentPart, type ChatFilePart, type ChatMessageInput,
} from '../../contracts.js';
import { invalidField, runtimeError } from '../errors.js';
import type { Attachment, ChatDeps, PreparedTurn, Turn } from './turn.js';

/** True when the content carries a file part. */
export function hasFilePart(content: string | ChatContentPart[]): boolean {
  return Array.isArray(content) && content.some((p) => p.type === 'file');
}

/** The file parts of some messages, in order. */
function fileParts(input: readonly ChatMessageInput[]): ChatFilePart[] {
  const out: ChatFilePart[] = [];
  for (const m of input) if (Array.isArray(m.content)) for (const p of m.content) if (p.type === 'file') out.push(p);
  return out;
}

/**
 * A file name safe in the workspace: its last path segment, characters other than letters, digits,
 * `.`, `_` and `-` replaced by `_`, no leading dot, at most 100 characters; `fallback` when nothing is left.
 */
export function safeFileName(name: string, fallback: string): string {
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  if (!base) return fallback;
  if (base.length <= 100) return base;
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 && base.length - dot <= 12 ? base.slice(dot) : '';
  return base.slice(0, 100 - ext.length) + ext;
}

/** Workspace paths for file names, in order: `data/<name>`, a repeated name as `data/<stem>-2<ext>`. */
export function attachmentPaths(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    const dot = name.lastIndexOf('.');
    const stem = dot > 0 ? name.slice(0, dot) : name;
    const ext = dot > 0 ? name.slice(dot) : '';
    let candidate = name;
    for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${stem}-${n}${ext}`;
    taken.add(candidate.toLowerCase());
    return `${ATTACHMENT_DIR}/${candidate}`;
  });
}

/** The input with every file part reduced to `{type, document_id}` (the runtime sets the other fields). */
function withCleanFileParts(input: readonly ChatMessageInput[]): ChatMessageInput[] {
  return input.map((m) => (Array.isArray(m.content) && hasFilePart(m.content)
    ? { ...m, content: m.content.map((p) => (p.type === 'file' ? { type: 'file' as const, document_id: p.document_id } : p)) }
    : m));
}

/**
 * Fetch the documents the turn's file parts name, as the user.
 * @returns the prepared turn with its `attachments` (unchanged when it has no file part).
 * @throws DomainError `invalid_request` (more than `MAX_FILE_PARTS`), `document_not_found` (404),
 *   `forbidden` (403), `payload_too_large` (413), `service_unavailable` (503: knowledge away, or no
 *   attachment port).
 */
export async function resolveAttachments(d: Pick<ChatDeps, 'attachments'>, p: PreparedTurn, signal?: AbortSignal): Promise<PreparedTurn> {
  const parts = fileParts(p.input);
  if (parts.length === 0) return p;
  if (parts.length > MAX_FILE_PARTS) throw invalidField(`at most ${MAX_FILE_PARTS} file parts per request`, 'body.messages');
  if (!d.attachments) throw runtimeError('service_unavailable', 'file parts are not available: the runtime has no knowledge or sandbox connection');
  const ids = [...new Set(parts.map((x) => x.document_id))];
  const files = [];
  let total = 0;
  for (const id of ids) {
    const f = await d.attachments.document(id, MAX_ATTACHMENT_BYTES, p.who.headers, signal);
    if ('failure' in f) {
      const extra = { extra: { document_id: id } };
      if (f.failure === 'not_found') throw runtimeError('document_not_found', `no document ${id} that you may read`, extra);
      if (f.failure === 'forbidden') throw runtimeError('forbidden', f.message, extra);
      if (f.failure === 'too_large') throw runtimeError('payload_too_large', `document ${id} is larger than ${MAX_ATTACHMENT_BYTES} bytes`, extra);
      throw runtimeError('service_unavailable', f.message, extra);
    }
    total += f.bytes;
    if (total > MAX_ATTACHMENTS_TOTAL_BYTES) throw runtimeError('payload_too_large', `the attached documents total more than ${MAX_ATTACHMENTS_TOTAL_BYTES} bytes`);
    files.push(f);
  }
  const paths = attachmentPaths(files.map((f) => safeFileName(f.filename, `document-${safeFileName(f.document_id, 'file')}`)));
  const attachments: Attachment[] = files.map((f, i) => ({ ...f, path: paths[i]! }));
  return { ...p, input: withCleanFileParts(p.input), attachments };
}

/**
 * Copy the turn's attachments into its sandbox workspace (one copy call each, as the user) and record
 * the outcome in the file parts of `input` (`filename` and `path`, or `error`). Never throws: a copy
 * that fails leaves a note for the model and the turn goes on.
 */
export async function copyAttachments(d: Pick<ChatDeps, 'attachments' | 'log'>, turn: Turn, input: ChatMessageInput[]): Promise<void> {
  const list = turn.p.attachments ?? [];
  if (list.length === 0 || !d.attachments) return;
  const { who, session } = turn.p;
  const outcome = new Map<string, { filename: string; path?: string; error?: string }>();
  for (const a of list) {
    const why = await d.attachments.copy(who.tenantId, session.id, [{ path: a.path, content_base64: a.content_base64 }], who.headers, turn.signal);
    if (why !== null) d.log.warn({ document_id: a.document_id, reason: why }, 'an attached document could not be copied into the sandbox');
    outcome.set(a.document_id, why === null ? { filename: a.filename, path: a.path } : { filename: a.filename, error: why });
  }
  for (const m of input) {
    if (!Array.isArray(m.content) || !hasFilePart(m.content)) continue;
    m.content = m.content.map((p) => (p.type === 'file' ? { type: 'file' as const, document_id: p.document_id, ...outcome.get(p.document_id) } : p));
  }
  turn.sink('trace_update', { patch: { attachments: list.map((a) => ({ document_id: a.document_id, path: outcome.get(a.document_id)?.path ?? null, bytes: a.bytes })) } });
}

/** The note that stands for a file part in the prompt. */
export function filePartNote(p: ChatFilePart): string {
  const name = p.filename ? `"${p.filename}"` : `document ${p.document_id}`;
  if (p.path) return `[The user attached the file ${name}. It is in the code sandbox workspace at ${p.path} (relative to the working directory of execute_code and bash).]`;
  if (p.error) return `[The user attached the file ${name}, but it could not be put in the code sandbox workspace: ${p.error}]`;
  return `[The user attached the knowledge document ${p.document_id}.]`;
}

/** Content parts as the model gets them: file parts become text notes, the others stay. */
export function modelContent(parts: readonly ChatContentPart[]): Array<Record<string, unknown>> {
  return parts.map((p) => (p.type === 'file' ? { type: 'text', text: filePartNote(p) } : p as unknown as Record<string, unknown>));
}
