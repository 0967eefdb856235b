/**
 * Chat sessions and folders (spec "Agent runtime surfaces": `/v1/sessions*` sessions, branching,
 * titles, folder moves; `/v1/folders*` folder CRUD; issue 5 item 2). Every operation is scoped to the
 * caller's (tenant, user); another user's session or folder answers 404 as if absent.
 *
 * Titles: a new session is titled from its first user message at once (`fallback`), then the
 * `title` role is asked for a short title in the background (best effort: a failure keeps the
 * fallback). A title the user set is never overwritten.
 */
import { AppError, invalidRequest } from '../../../shared/http/errors.js';
import { ulidFactory } from '../../../shared/identity/ulid.js';
import type { InferenceClient } from '../clients/inference.js';
import type { ChatContentPart, FolderView, MessageView, ProcessingTrace, ReceiptRef, SessionView } from '../contracts.js';
import type { FolderRow, MessageRow, RuntimeStore, SessionRow } from '../store/runtime-store.js';

const nextId = ulidFactory();

/** Caller scope. */
export interface Owner { tenantId: string; userId: string }

/** Session row -> view. */
export function sessionView(r: SessionRow): SessionView {
  return {
    id: r.id, agent_id: r.agent_id, title: r.title, folder_id: r.folder_id,
    branched_from: r.branched_from_session && r.branched_from_message ? { session_id: r.branched_from_session, message_id: r.branched_from_message } : null,
    message_count: r.message_count, created_at: r.created_at, updated_at: r.updated_at,
  };
}

/** Message row -> view (JSON columns parsed, absent ones omitted). */
export function messageView(r: MessageRow): MessageView {
  const v: MessageView = { id: r.id, role: r.role as MessageView['role'], content: r.content, turn_id: r.turn_id, created_at: r.created_at };
  if (r.parts) v.parts = JSON.parse(r.parts) as ChatContentPart[];
  if (r.tool_calls) v.tool_calls = JSON.parse(r.tool_calls) as NonNullable<MessageView['tool_calls']>;
  if (r.tool_call_id) v.tool_call_id = r.tool_call_id;
  if (r.name) v.name = r.name;
  if (r.trace) v.processing_trace = JSON.parse(r.trace) as ProcessingTrace;
  if (r.receipt) v.receipt = JSON.parse(r.receipt) as ReceiptRef;
  return v;
}

function folderView(r: FolderRow): FolderView {
  return { id: r.id, name: r.name, session_count: r.session_count, created_at: r.created_at, updated_at: r.updated_at };
}

function encodeCursor(r: SessionRow): string {
  return Buffer.from(`${r.updated_at}|${r.id}`, 'utf8').toString('base64url');
}

function decodeCursor(c: string): { updatedAt: string; id: string } {
  const [updatedAt, id] = Buffer.from(c, 'base64url').toString('utf8').split('|');
  if (!updatedAt || !id || !/^\d{4}-\d\d-\d\dT/.test(updatedAt)) throw invalidRequest('cursor is not valid', 'querystring.cursor');
  return { updatedAt, id };
}

/** A clean title: one line, no quotes or trailing punctuation, at most 80 characters. */
export function cleanTitle(raw: string): string {
  const line = raw.replace(/<think>[\s\S]*?<\/think>/g, '').split('\n').map((l) => l.trim()).find(Boolean) ?? '';
  return line.replace(/^(title:\s*)/i, '').replace(/^["'“”‘’`*#\s]+|["'“”‘’`*\s.]+$/g, '').slice(0, 80);
}

/** Session and folder operations. */
export class SessionService {
  constructor(private readonly store: RuntimeStore, private readonly inference: InferenceClient, private readonly defaultAgentId: string) {}

  private session(id: string, o: Owner): SessionRow {
    const s = this.store.getSession(id, o.tenantId, o.userId);
    if (!s) throw new AppError(404, 'session_not_found', `no session ${id}`);
    return s;
  }

  private folder(id: string, o: Owner): FolderRow {
    const f = this.store.getFolder(id, o.tenantId, o.userId);
    if (!f) throw new AppError(404, 'folder_not_found', `no folder ${id}`);
    return f;
  }

  /** Create an empty session. @throws AppError 404 `folder_not_found`. */
  create(o: Owner, body: { title?: string; agent_id?: string; folder_id?: string | null }): SessionView {
    if (body.folder_id) this.folder(body.folder_id, o);
    const now = new Date().toISOString();
    const row: SessionRow = {
      id: nextId(), tenant_id: o.tenantId, user_id: o.userId, agent_id: body.agent_id ?? this.defaultAgentId, title: body.title ?? null,
      title_source: body.title ? 'user' : 'none', folder_id: body.folder_id ?? null, branched_from_session: null, branched_from_message: null,
      message_count: 0, created_at: now, updated_at: now,
    };
    this.store.createSession(row);
    return sessionView(row);
  }

  /**
   * List sessions, most recently updated first.
   * @param q.q case-insensitive search in titles and message text; `folder_id` `none` = in no folder.
   * @throws AppError 400 on a malformed cursor.
   */
  list(o: Owner, q: { q?: string; folder_id?: string; limit?: number; cursor?: string }): { items: SessionView[]; next_cursor?: string } {
    const limit = q.limit ?? 50;
    const rows = this.store.listSessions({
      tenantId: o.tenantId, userId: o.userId, limit: limit + 1,
      ...(q.q ? { q: q.q } : {}),
      ...(q.folder_id !== undefined ? { folderId: q.folder_id === 'none' ? null : q.folder_id } : {}),
      ...(q.cursor ? { after: decodeCursor(q.cursor) } : {}),
    });
    const page = rows.slice(0, limit);
    const out: { items: SessionView[]; next_cursor?: string } = { items: page.map(sessionView) };
    if (rows.length > limit) out.next_cursor = encodeCursor(page[page.length - 1]!);
    return out;
  }

  /** A session with its messages. @throws AppError 404. */
  get(id: string, o: Owner): SessionView & { messages: MessageView[] } {
    const s = this.session(id, o);
    return { ...sessionView(s), messages: this.store.messages(s.id).map(messageView) };
  }

  /** Rename, move to a folder (null = none) or change agent. @throws AppError 404 (session or folder). */
  update(id: string, o: Owner, patch: { title?: string; folder_id?: string | null; agent_id?: string }): SessionView {
    const s = this.session(id, o);
    if (patch.folder_id) this.folder(patch.folder_id, o);
    const next: SessionRow = {
      ...s,
      ...(patch.title !== undefined ? { title: patch.title, title_source: 'user' } : {}),
      ...(patch.folder_id !== undefined ? { folder_id: patch.folder_id } : {}),
      ...(patch.agent_id !== undefined ? { agent_id: patch.agent_id } : {}),
      updated_at: new Date().toISOString(),
    };
    this.store.updateSession(next);
    return sessionView(next);
  }

  /** Delete a session and its messages. @throws AppError 404. */
  delete(id: string, o: Owner): void {
    if (!this.store.deleteSession(id, o.tenantId, o.userId)) throw new AppError(404, 'session_not_found', `no session ${id}`);
  }

  /**
   * A new session holding copies of the messages up to and including `messageId` (spec: branching).
   * @throws AppError 404 `session_not_found` / `message_not_found`.
   */
  branch(id: string, o: Owner, messageId: string, title?: string): SessionView & { messages: MessageView[] } {
    const s = this.session(id, o);
    const all = this.store.messages(s.id);
    const cut = all.findIndex((m) => m.id === messageId);
    if (cut < 0) throw new AppError(404, 'message_not_found', `no message ${messageId} in session ${id}`);
    let keep = all.slice(0, cut + 1);
    // A branch cut after an assistant tool call keeps its tool results, so the history stays valid.
    let j = cut + 1;
    while (j < all.length && all[j]!.role === 'tool') keep = all.slice(0, ++j);
    const now = new Date().toISOString();
    const row: SessionRow = {
      ...s, id: nextId(), title: title ?? (s.title ? `${s.title} (branch)`.slice(0, 200) : null), title_source: title ? 'user' : s.title_source,
      branched_from_session: s.id, branched_from_message: messageId, message_count: 0, created_at: now, updated_at: now,
    };
    this.store.createSession(row, keep.map((m) => ({
      id: nextId(), role: m.role, content: m.content, parts: m.parts, tool_calls: m.tool_calls, tool_call_id: m.tool_call_id, name: m.name,
      turn_id: m.turn_id, trace: m.trace, receipt: m.receipt, created_at: m.created_at,
    })));
    return this.get(row.id, o);
  }

  /**
   * Ask the `title` role for a title from the session's first user message and store it (unless the
   * user titled the session meanwhile, or `force` is false and a title was generated already).
   * @returns the title in force afterwards.
   * @throws AppError 404; InferenceError when the model call fails.
   */
  async generateTitle(id: string, o: Owner, headers: Record<string, string>, force = false): Promise<string | null> {
    const s = this.session(id, o);
    if (s.title_source === 'user' || (!force && s.title_source === 'generated')) return s.title;
    const first = this.store.messages(s.id).find((m) => m.role === 'user');
    if (!first) return s.title;
    const r = await this.inference.stream({
      model: 'title', max_tokens: 24, temperature: 0.2,
      messages: [
        { role: 'system', content: 'Write a short title (at most six words) for a conversation that starts with the user message below. Answer with the title only.' },
        { role: 'user', content: first.content.slice(0, 2000) },
      ],
    }, headers);
    const title = cleanTitle(r.content);
    if (!title) return s.title;
    if (force) this.store.updateSession({ ...s, title, title_source: 'generated', updated_at: s.updated_at });
    else this.store.setGeneratedTitle(s.id, title, 'generated');
    return this.store.getSession(s.id, o.tenantId, o.userId)?.title ?? title;
  }

  /** Create a folder. */
  createFolder(o: Owner, name: string): FolderView {
    const now = new Date().toISOString();
    const id = nextId();
    this.store.createFolder(id, o.tenantId, o.userId, name, now);
    return folderView(this.folder(id, o));
  }

  /** Folders of the caller. */
  listFolders(o: Owner): { items: FolderView[] } {
    return { items: this.store.listFolders(o.tenantId, o.userId).map(folderView) };
  }

  /** One folder with its sessions. @throws AppError 404. */
  getFolder(id: string, o: Owner): FolderView & { sessions: SessionView[] } {
    const f = this.folder(id, o);
    const sessions = this.store.listSessions({ tenantId: o.tenantId, userId: o.userId, folderId: id, limit: 500 }).map(sessionView);
    return { ...folderView(f), sessions };
  }

  /** Rename a folder. @throws AppError 404. */
  renameFolder(id: string, o: Owner, name: string): FolderView {
    if (!this.store.renameFolder(id, o.tenantId, o.userId, name, new Date().toISOString())) throw new AppError(404, 'folder_not_found', `no folder ${id}`);
    return folderView(this.folder(id, o));
  }

  /** Delete a folder; its sessions stay, in no folder. @throws AppError 404. */
  deleteFolder(id: string, o: Owner): void {
    if (!this.store.deleteFolder(id, o.tenantId, o.userId)) throw new AppError(404, 'folder_not_found', `no folder ${id}`);
  }
}
