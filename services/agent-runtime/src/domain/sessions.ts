/**
 * Chat sessions and folders (spec "Agent runtime surfaces": `/v1/sessions*` sessions, branching,
 * titles, folder moves; `/v1/folders*` folder CRUD; issue 5 item 2). Every operation is scoped to the
 * caller's (tenant, user); another user's session or folder answers 404 as if absent.
 *
 * Titles: a new session is titled from its first user message at once (`fallback`), then the
 * `title` role is asked for a short title in the background (best effort: a failure keeps the
 * fallback). A title the user set is never overwritten.
 */
import { ulidFactory } from '../../../shared/identity/ulid.js';
import type {
  ChatContentPart, FolderDetail, FolderView, MessageView, ProcessingTrace, ReceiptRef, SessionCreate, SessionDetail, SessionPage, SessionPatch, SessionQuery,
  SessionView,
} from '../contracts.js';
import { invalidField, runtimeError } from './errors.js';
import type { FolderRow, FolderStore, MessageRow, ModelPort, SessionRow, SessionStore } from './ports.js';

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
  if (!updatedAt || !id || !/^\d{4}-\d\d-\d\dT/.test(updatedAt)) throw invalidField('cursor is not valid', 'querystring.cursor');
  return { updatedAt, id };
}

/** A folder name, trimmed. @throws DomainError `invalid_request` when blank. */
function folderName(name: string): string {
  if (!name.trim()) throw invalidField('name must not be blank', 'body.name');
  return name.trim();
}

/** A clean title: one line, no quotes or trailing punctuation, at most 80 characters. */
export function cleanTitle(raw: string): string {
  const line = raw.replace(/<think>[\s\S]*?<\/think>/g, '').split('\n').map((l) => l.trim()).find(Boolean) ?? '';
  return line.replace(/^(title:\s*)/i, '').replace(/^["'“”‘’`*#\s]+|["'“”‘’`*\s.]+$/g, '').slice(0, 80);
}

/** What the session service needs. */
export interface SessionDeps {
  sessions: SessionStore;
  folders: FolderStore;
  /** The inference router (the `title` role). */
  model: ModelPort;
  /** Agent id of a session created without one (settings `defaultAgentId`). */
  defaultAgentId: string;
  /** Title a new session through the `title` role after its first turn (settings `titleGeneration`). */
  titleGeneration: boolean;
  log: { warn(obj: object, msg: string): void };
}

/** Session and folder operations. */
export class SessionService {
  private readonly sessions: SessionStore;
  private readonly folders: FolderStore;

  constructor(private readonly d: SessionDeps) {
    this.sessions = d.sessions;
    this.folders = d.folders;
  }

  private async session(id: string, o: Owner): Promise<SessionRow> {
    const s = await this.sessions.get(id, o.tenantId, o.userId);
    if (!s) throw runtimeError('session_not_found', `no session ${id}`);
    return s;
  }

  private async folder(id: string, o: Owner): Promise<FolderRow> {
    const f = await this.folders.get(id, o.tenantId, o.userId);
    if (!f) throw runtimeError('folder_not_found', `no folder ${id}`);
    return f;
  }

  /** Create an empty session. @throws DomainError `folder_not_found`. */
  async create(o: Owner, body: SessionCreate): Promise<SessionView> {
    if (body.folder_id) await this.folder(body.folder_id, o);
    const now = new Date().toISOString();
    const row: SessionRow = {
      id: nextId(), tenant_id: o.tenantId, user_id: o.userId, agent_id: body.agent_id ?? this.d.defaultAgentId, title: body.title ?? null,
      title_source: body.title ? 'user' : 'none', folder_id: body.folder_id ?? null, branched_from_session: null, branched_from_message: null,
      message_count: 0, created_at: now, updated_at: now,
    };
    await this.sessions.create(row);
    return sessionView(row);
  }

  /**
   * List sessions, most recently updated first.
   * @param q.q case-insensitive search in titles and message text; `folder_id` `none` = in no folder.
   * @throws DomainError `invalid_request` on a malformed cursor.
   */
  async list(o: Owner, q: SessionQuery): Promise<SessionPage> {
    const limit = q.limit ?? 50;
    const rows = await this.sessions.list({
      tenantId: o.tenantId, userId: o.userId, limit: limit + 1,
      ...(q.q ? { q: q.q } : {}),
      ...(q.folder_id !== undefined ? { folderId: q.folder_id === 'none' ? null : q.folder_id } : {}),
      ...(q.cursor ? { after: decodeCursor(q.cursor) } : {}),
    });
    const page = rows.slice(0, limit);
    const out: SessionPage = { items: page.map(sessionView) };
    if (rows.length > limit) out.next_cursor = encodeCursor(page[page.length - 1]!);
    return out;
  }

  /** A session with its messages. @throws DomainError `session_not_found`. */
  async get(id: string, o: Owner): Promise<SessionDetail> {
    const s = await this.session(id, o);
    return { ...sessionView(s), messages: (await this.sessions.messages(s.id)).map(messageView) };
  }

  /** Rename, move to a folder (null = none) or change agent. @throws DomainError `session_not_found` / `folder_not_found`. */
  async update(id: string, o: Owner, patch: SessionPatch): Promise<SessionView> {
    const s = await this.session(id, o);
    if (patch.folder_id) await this.folder(patch.folder_id, o);
    const next: SessionRow = {
      ...s,
      ...(patch.title !== undefined ? { title: patch.title, title_source: 'user' } : {}),
      ...(patch.folder_id !== undefined ? { folder_id: patch.folder_id } : {}),
      ...(patch.agent_id !== undefined ? { agent_id: patch.agent_id } : {}),
      updated_at: new Date().toISOString(),
    };
    await this.sessions.update(next);
    return sessionView(next);
  }

  /** Delete a session and its messages. @throws DomainError `session_not_found`. */
  async delete(id: string, o: Owner): Promise<void> {
    if (!await this.sessions.delete(id, o.tenantId, o.userId)) throw runtimeError('session_not_found', `no session ${id}`);
  }

  /**
   * A new session holding copies of the messages up to and including `messageId` (spec: branching).
   * @throws DomainError `session_not_found` / `message_not_found`.
   */
  async branch(id: string, o: Owner, messageId: string, title?: string): Promise<SessionDetail> {
    const s = await this.session(id, o);
    const all = await this.sessions.messages(s.id);
    const cut = all.findIndex((m) => m.id === messageId);
    if (cut < 0) throw runtimeError('message_not_found', `no message ${messageId} in session ${id}`);
    let keep = all.slice(0, cut + 1);
    // A branch cut after an assistant tool call keeps its tool results, so the history stays valid.
    let j = cut + 1;
    while (j < all.length && all[j]!.role === 'tool') keep = all.slice(0, ++j);
    const now = new Date().toISOString();
    const row: SessionRow = {
      ...s, id: nextId(), title: title ?? (s.title ? `${s.title} (branch)`.slice(0, 200) : null), title_source: title ? 'user' : s.title_source,
      branched_from_session: s.id, branched_from_message: messageId, message_count: 0, created_at: now, updated_at: now,
    };
    await this.sessions.create(row, keep.map((m) => ({
      id: nextId(), role: m.role, content: m.content, parts: m.parts, tool_calls: m.tool_calls, tool_call_id: m.tool_call_id, name: m.name,
      turn_id: m.turn_id, trace: m.trace, receipt: m.receipt, created_at: m.created_at,
    })));
    return this.get(row.id, o);
  }

  /**
   * Ask the `title` role for a title from the session's first user message and store it (unless the
   * user titled the session meanwhile, or `force` is false and a title was generated already).
   * @returns the title in force afterwards.
   * @throws DomainError `session_not_found`; InferenceError when the model call fails.
   */
  async generateTitle(id: string, o: Owner, headers: Record<string, string>, force = false): Promise<string | null> {
    const s = await this.session(id, o);
    if (s.title_source === 'user' || (!force && s.title_source === 'generated')) return s.title;
    const first = (await this.sessions.messages(s.id)).find((m) => m.role === 'user');
    if (!first) return s.title;
    const r = await this.d.model.stream({
      model: 'title', max_tokens: 24, temperature: 0.2,
      messages: [
        { role: 'system', content: 'Write a short title (at most six words) for a conversation that starts with the user message below. Answer with the title only.' },
        { role: 'user', content: first.content.slice(0, 2000) },
      ],
    }, headers);
    const title = cleanTitle(r.content);
    if (!title) return s.title;
    if (force) await this.sessions.update({ ...s, title, title_source: 'generated', updated_at: s.updated_at });
    else await this.sessions.setGeneratedTitle(s.id, title, 'generated');
    return (await this.sessions.get(s.id, o.tenantId, o.userId))?.title ?? title;
  }

  /**
   * After a new session's first turn that did not fail, title it through the `title` role (best
   * effort, in the background: a failure is logged and keeps the fallback title).
   */
  titleAfterFirstTurn(p: { isNew: boolean; who: { tenantId: string; userId: string; headers: Record<string, string> } }, o: { status: string; sessionId: string }): void {
    if (!this.d.titleGeneration || !p.isNew || o.status === 'failed') return;
    this.generateTitle(o.sessionId, { tenantId: p.who.tenantId, userId: p.who.userId }, p.who.headers)
      .catch((err: unknown) => this.d.log.warn({ err: (err as Error).message, session_id: o.sessionId }, 'title generation failed'));
  }

  /** Create a folder named `name` (trimmed). @throws DomainError `invalid_request` when the name is blank. */
  async createFolder(o: Owner, name: string): Promise<FolderView> {
    const clean = folderName(name);
    const now = new Date().toISOString();
    const id = nextId();
    await this.folders.create(id, o.tenantId, o.userId, clean, now);
    return folderView(await this.folder(id, o));
  }

  /** Folders of the caller. */
  async listFolders(o: Owner): Promise<{ items: FolderView[] }> {
    return { items: (await this.folders.list(o.tenantId, o.userId)).map(folderView) };
  }

  /** One folder with its sessions. @throws DomainError `folder_not_found`. */
  async getFolder(id: string, o: Owner): Promise<FolderDetail> {
    const f = await this.folder(id, o);
    const sessions = (await this.sessions.list({ tenantId: o.tenantId, userId: o.userId, folderId: id, limit: 500 })).map(sessionView);
    return { ...folderView(f), sessions };
  }

  /** Rename a folder (name trimmed). @throws DomainError `invalid_request` (blank name), `folder_not_found`. */
  async renameFolder(id: string, o: Owner, name: string): Promise<FolderView> {
    const clean = folderName(name);
    if (!await this.folders.rename(id, o.tenantId, o.userId, clean, new Date().toISOString())) throw runtimeError('folder_not_found', `no folder ${id}`);
    return folderView(await this.folder(id, o));
  }

  /** Delete a folder; its sessions stay, in no folder. @throws DomainError `folder_not_found`. */
  async deleteFolder(id: string, o: Owner): Promise<void> {
    if (!await this.folders.delete(id, o.tenantId, o.userId)) throw runtimeError('folder_not_found', `no folder ${id}`);
  }
}
