/**
 * The runtime's SQLite store (`<dbDir>/agent-runtime.sqlite`, migrations/agent-runtime): sessions,
 * messages, folders, approvals and tool policies. The only code of the runtime that touches SQLite;
 * statements are prepared once. Every read and write is scoped by (tenant, owner) by the caller.
 */
import type { Db } from '../../../shared/db/open.js';

/** A session row. */
export interface SessionRow {
  id: string; tenant_id: string; user_id: string; agent_id: string; title: string | null; title_source: string;
  folder_id: string | null; branched_from_session: string | null; branched_from_message: string | null;
  message_count: number; created_at: string; updated_at: string;
}

/** A message row (JSON columns as text). */
export interface MessageRow {
  id: string; session_id: string; seq: number; role: string; content: string; parts: string | null; tool_calls: string | null;
  tool_call_id: string | null; name: string | null; turn_id: string | null; trace: string | null; receipt: string | null; created_at: string;
}

/** A message to append (seq is assigned by the store). */
export type NewMessage = Omit<MessageRow, 'seq' | 'session_id'>;

/** A folder row with its session count. */
export interface FolderRow { id: string; tenant_id: string; user_id: string; name: string; created_at: string; updated_at: string; session_count: number }

/** An approval row. */
export interface ApprovalRow {
  id: string; tenant_id: string; user_id: string; session_id: string; agent_id: string; turn_id: string | null; tool: string; call_id: string;
  arguments: string; status: string; reason: string | null; created_at: string; expires_at: string; decided_at: string | null; decided_by: string | null;
}

/** A stored tool policy rule. */
export interface PolicyRow { tenant_id: string; agent_id: string; tool: string; policy: string; updated_at: string; updated_by: string | null }

/** Session list filter. */
export interface SessionQuery {
  tenantId: string; userId: string; q?: string; folderId?: string | null; limit: number;
  /** Keyset cursor: (updated_at, id) of the last item of the previous page. */
  after?: { updatedAt: string; id: string };
}

/** Store over one open database. */
export class RuntimeStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      insertSession: db.prepare(`INSERT INTO sessions (id, tenant_id, user_id, agent_id, title, title_source, folder_id, branched_from_session,
        branched_from_message, message_count, created_at, updated_at) VALUES (@id, @tenant_id, @user_id, @agent_id, @title, @title_source, @folder_id,
        @branched_from_session, @branched_from_message, @message_count, @created_at, @updated_at)`),
      getSession: db.prepare('SELECT * FROM sessions WHERE id = ? AND tenant_id = ? AND user_id = ?'),
      updateSession: db.prepare(`UPDATE sessions SET title = @title, title_source = @title_source, folder_id = @folder_id, agent_id = @agent_id,
        updated_at = @updated_at WHERE id = @id AND tenant_id = @tenant_id AND user_id = @user_id`),
      setTitleIf: db.prepare(`UPDATE sessions SET title = ?, title_source = ? WHERE id = ? AND title_source IN ('none', 'fallback')`),
      deleteSession: db.prepare('DELETE FROM sessions WHERE id = ? AND tenant_id = ? AND user_id = ?'),
      touchSession: db.prepare('UPDATE sessions SET message_count = message_count + ?, updated_at = ? WHERE id = ?'),
      maxSeq: db.prepare('SELECT COALESCE(MAX(seq), 0) AS m FROM messages WHERE session_id = ?'),
      insertMessage: db.prepare(`INSERT INTO messages (id, session_id, seq, role, content, parts, tool_calls, tool_call_id, name, turn_id, trace, receipt,
        created_at) VALUES (@id, @session_id, @seq, @role, @content, @parts, @tool_calls, @tool_call_id, @name, @turn_id, @trace, @receipt, @created_at)`),
      messages: db.prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY seq'),
      message: db.prepare('SELECT * FROM messages WHERE session_id = ? AND id = ?'),
      insertFolder: db.prepare('INSERT INTO folders (id, tenant_id, user_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)'),
      getFolder: db.prepare(`SELECT f.*, (SELECT COUNT(*) FROM sessions s WHERE s.folder_id = f.id) AS session_count FROM folders f
        WHERE f.id = ? AND f.tenant_id = ? AND f.user_id = ?`),
      listFolders: db.prepare(`SELECT f.*, (SELECT COUNT(*) FROM sessions s WHERE s.folder_id = f.id) AS session_count FROM folders f
        WHERE f.tenant_id = ? AND f.user_id = ? ORDER BY f.name COLLATE NOCASE, f.id`),
      renameFolder: db.prepare('UPDATE folders SET name = ?, updated_at = ? WHERE id = ? AND tenant_id = ? AND user_id = ?'),
      deleteFolder: db.prepare('DELETE FROM folders WHERE id = ? AND tenant_id = ? AND user_id = ?'),
      insertApproval: db.prepare(`INSERT INTO approvals (id, tenant_id, user_id, session_id, agent_id, turn_id, tool, call_id, arguments, status, reason,
        created_at, expires_at, decided_at, decided_by) VALUES (@id, @tenant_id, @user_id, @session_id, @agent_id, @turn_id, @tool, @call_id, @arguments,
        @status, @reason, @created_at, @expires_at, @decided_at, @decided_by)`),
      getApproval: db.prepare('SELECT * FROM approvals WHERE id = ? AND tenant_id = ?'),
      decideApproval: db.prepare(`UPDATE approvals SET status = ?, reason = ?, decided_at = ?, decided_by = ? WHERE id = ? AND tenant_id = ? AND status = 'pending'`),
      expireAll: db.prepare(`UPDATE approvals SET status = 'cancelled', reason = 'runtime restarted', decided_at = ? WHERE status = 'pending'`),
      listPolicies: db.prepare('SELECT * FROM tool_policies WHERE tenant_id = ? ORDER BY tool, agent_id'),
      upsertPolicy: db.prepare(`INSERT INTO tool_policies (tenant_id, agent_id, tool, policy, updated_at, updated_by) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (tenant_id, agent_id, tool) DO UPDATE SET policy = excluded.policy, updated_at = excluded.updated_at, updated_by = excluded.updated_by`),
      deletePolicy: db.prepare('DELETE FROM tool_policies WHERE tenant_id = ? AND agent_id = ? AND tool = ?'),
    };
  }

  /** Insert a session and (optionally) its first messages in one transaction. */
  createSession(row: SessionRow, messages: NewMessage[] = []): void {
    this.db.transaction(() => {
      this.s.insertSession.run(row);
      if (messages.length) this.appendMessagesTx(row.id, messages, row.updated_at);
    })();
  }

  /** The session if it belongs to (tenant, user). */
  getSession(id: string, tenantId: string, userId: string): SessionRow | undefined {
    return this.s.getSession.get(id, tenantId, userId) as SessionRow | undefined;
  }

  /** Write back title, folder and agent of a session. @returns whether a row changed. */
  updateSession(row: SessionRow): boolean {
    return this.s.updateSession.run(row).changes > 0;
  }

  /** Set a generated title unless the user (or a generated title) already set one. */
  setGeneratedTitle(id: string, title: string, source: 'fallback' | 'generated'): boolean {
    return this.s.setTitleIf.run(title, source, id).changes > 0;
  }

  /** Delete a session and its messages. @returns whether it existed. */
  deleteSession(id: string, tenantId: string, userId: string): boolean {
    return this.s.deleteSession.run(id, tenantId, userId).changes > 0;
  }

  private appendMessagesTx(sessionId: string, messages: NewMessage[], now: string): void {
    let seq = (this.s.maxSeq.get(sessionId) as { m: number }).m;
    for (const m of messages) this.s.insertMessage.run({ ...m, session_id: sessionId, seq: ++seq });
    this.s.touchSession.run(messages.length, now, sessionId);
  }

  /** Append messages at the end of a session, in order. */
  appendMessages(sessionId: string, messages: NewMessage[], now: string): void {
    this.db.transaction(() => this.appendMessagesTx(sessionId, messages, now))();
  }

  /** Every message of a session in order. */
  messages(sessionId: string): MessageRow[] {
    return this.s.messages.all(sessionId) as MessageRow[];
  }

  /** One message of a session. */
  message(sessionId: string, id: string): MessageRow | undefined {
    return this.s.message.get(sessionId, id) as MessageRow | undefined;
  }

  /**
   * Sessions of (tenant, user), most recently updated first. `q` matches titles and message text
   * (case-insensitive substring); `folderId` null = sessions in no folder.
   */
  listSessions(q: SessionQuery): SessionRow[] {
    const where = ['s.tenant_id = ?', 's.user_id = ?'];
    const args: unknown[] = [q.tenantId, q.userId];
    if (q.folderId !== undefined) {
      if (q.folderId === null) where.push('s.folder_id IS NULL');
      else { where.push('s.folder_id = ?'); args.push(q.folderId); }
    }
    if (q.q) {
      const like = `%${q.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.push(`(s.title LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id AND m.role IN ('user', 'assistant')
        AND m.content LIKE ? ESCAPE '\\'))`);
      args.push(like, like);
    }
    if (q.after) {
      where.push('(s.updated_at < ? OR (s.updated_at = ? AND s.id < ?))');
      args.push(q.after.updatedAt, q.after.updatedAt, q.after.id);
    }
    args.push(q.limit);
    return this.db.prepare(`SELECT s.* FROM sessions s WHERE ${where.join(' AND ')} ORDER BY s.updated_at DESC, s.id DESC LIMIT ?`).all(...args) as SessionRow[];
  }

  /** Insert a folder. */
  createFolder(id: string, tenantId: string, userId: string, name: string, now: string): void {
    this.s.insertFolder.run(id, tenantId, userId, name, now, now);
  }

  /** A folder of (tenant, user) with its session count. */
  getFolder(id: string, tenantId: string, userId: string): FolderRow | undefined {
    return this.s.getFolder.get(id, tenantId, userId) as FolderRow | undefined;
  }

  /** Folders of (tenant, user) by name. */
  listFolders(tenantId: string, userId: string): FolderRow[] {
    return this.s.listFolders.all(tenantId, userId) as FolderRow[];
  }

  /** Rename a folder. @returns whether it existed. */
  renameFolder(id: string, tenantId: string, userId: string, name: string, now: string): boolean {
    return this.s.renameFolder.run(name, now, id, tenantId, userId).changes > 0;
  }

  /** Delete a folder; its sessions fall back to no folder. @returns whether it existed. */
  deleteFolder(id: string, tenantId: string, userId: string): boolean {
    return this.s.deleteFolder.run(id, tenantId, userId).changes > 0;
  }

  /** Insert an approval request. */
  insertApproval(row: ApprovalRow): void {
    this.s.insertApproval.run(row);
  }

  /** An approval of the tenant. */
  getApproval(id: string, tenantId: string): ApprovalRow | undefined {
    return this.s.getApproval.get(id, tenantId) as ApprovalRow | undefined;
  }

  /** Move a pending approval to a decided status. @returns false when it was not pending. */
  decideApproval(id: string, tenantId: string, status: string, reason: string | null, at: string, by: string | null): boolean {
    return this.s.decideApproval.run(status, reason, at, by, id, tenantId).changes > 0;
  }

  /** Approvals, newest first; `userId` null = the whole tenant, `status` null = any. */
  listApprovals(tenantId: string, userId: string | null, status: string | null, limit: number): ApprovalRow[] {
    const where = ['tenant_id = ?'];
    const args: unknown[] = [tenantId];
    if (userId !== null) { where.push('user_id = ?'); args.push(userId); }
    if (status !== null) { where.push('status = ?'); args.push(status); }
    args.push(limit);
    return this.db.prepare(`SELECT * FROM approvals WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`).all(...args) as ApprovalRow[];
  }

  /** At start: runs parked before a restart are gone, so their approvals are cancelled. @returns how many. */
  cancelPendingApprovals(at: string): number {
    return this.s.expireAll.run(at).changes;
  }

  /** Stored tool policy rules of a tenant. */
  listPolicies(tenantId: string): PolicyRow[] {
    return this.s.listPolicies.all(tenantId) as PolicyRow[];
  }

  /** Insert or replace a rule. */
  upsertPolicy(tenantId: string, agentId: string, tool: string, policy: string, at: string, by: string | null): void {
    this.s.upsertPolicy.run(tenantId, agentId, tool, policy, at, by);
  }

  /** Remove a rule. @returns whether it existed. */
  deletePolicy(tenantId: string, agentId: string, tool: string): boolean {
    return this.s.deletePolicy.run(tenantId, agentId, tool).changes > 0;
  }
}
