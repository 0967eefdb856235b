/**
 * Sessions and messages over SQLite (tables `sessions`, `messages` of migrations/agent-runtime):
 * a session and its messages are written in one transaction; statements are prepared once.
 */
import type { Db } from '../../../shared/db/open.js';
import type { MessageRow, NewMessage, SessionFilter, SessionRow, SessionStore } from '../domain/ports.js';

/** `SessionStore` over one open database. */
export class SqliteSessionStore implements SessionStore {
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
    };
  }

  create(row: SessionRow, messages: NewMessage[] = []): void {
    this.db.transaction(() => {
      this.s.insertSession.run(row);
      if (messages.length) this.appendTx(row.id, messages, row.updated_at);
    })();
  }

  get(id: string, tenantId: string, userId: string): SessionRow | undefined {
    return this.s.getSession.get(id, tenantId, userId) as SessionRow | undefined;
  }

  update(row: SessionRow): boolean {
    return this.s.updateSession.run(row).changes > 0;
  }

  setGeneratedTitle(id: string, title: string, source: 'fallback' | 'generated'): boolean {
    return this.s.setTitleIf.run(title, source, id).changes > 0;
  }

  delete(id: string, tenantId: string, userId: string): boolean {
    return this.s.deleteSession.run(id, tenantId, userId).changes > 0;
  }

  list(q: SessionFilter): SessionRow[] {
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

  private appendTx(sessionId: string, messages: NewMessage[], now: string): void {
    let seq = (this.s.maxSeq.get(sessionId) as { m: number }).m;
    for (const m of messages) this.s.insertMessage.run({ ...m, session_id: sessionId, seq: ++seq });
    this.s.touchSession.run(messages.length, now, sessionId);
  }

  appendMessages(sessionId: string, messages: NewMessage[], now: string): void {
    this.db.transaction(() => this.appendTx(sessionId, messages, now))();
  }

  messages(sessionId: string): MessageRow[] {
    return this.s.messages.all(sessionId) as MessageRow[];
  }
}
