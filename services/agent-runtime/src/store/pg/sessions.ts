/**
 * Sessions, messages and folders on PostgreSQL (issue 21 item 1; tables `sessions`, `messages`,
 * `folders` of migrations/agent-runtime/pg/0001_core.sql): the twins of store/sessions.ts and
 * store/folders.ts, answering the same rows in the same order. An append locks its session's row,
 * so two processes appending to one session get consecutive `seq` values.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { FolderRow, FolderStore, MessageRow, NewMessage, SessionFilter, SessionRow, SessionStore } from '../../domain/ports.js';

const SESSION_COLS = 'id, tenant_id, user_id, agent_id, title, title_source, folder_id, branched_from_session, branched_from_message, message_count, created_at, updated_at';
const MESSAGE_COLS = 'id, session_id, seq, role, content, parts, tool_calls, tool_call_id, name, turn_id, trace, receipt, created_at';

/** `SessionStore` on one schema. */
export class PgSessionStore implements SessionStore {
  constructor(private readonly db: PgDb) {}

  async create(row: SessionRow, messages: NewMessage[] = []): Promise<void> {
    await this.db.tx(async () => {
      await this.db.exec(`INSERT INTO sessions (${SESSION_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, [
        row.id, row.tenant_id, row.user_id, row.agent_id, row.title, row.title_source, row.folder_id, row.branched_from_session,
        row.branched_from_message, row.message_count, row.created_at, row.updated_at,
      ]);
      if (messages.length) await this.appendTx(row.id, messages, row.updated_at);
    });
  }

  async get(id: string, tenantId: string, userId: string): Promise<SessionRow | undefined> {
    const [r] = await this.db.query<SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE id = $1 AND tenant_id = $2 AND user_id = $3`, [id, tenantId, userId]);
    return r;
  }

  async update(row: SessionRow): Promise<boolean> {
    return (await this.db.exec(`UPDATE sessions SET title = $1, title_source = $2, folder_id = $3, agent_id = $4, updated_at = $5
      WHERE id = $6 AND tenant_id = $7 AND user_id = $8`, [row.title, row.title_source, row.folder_id, row.agent_id, row.updated_at, row.id, row.tenant_id, row.user_id])) > 0;
  }

  async setGeneratedTitle(id: string, title: string, source: 'fallback' | 'generated'): Promise<boolean> {
    return (await this.db.exec(`UPDATE sessions SET title = $1, title_source = $2 WHERE id = $3 AND title_source IN ('none', 'fallback')`, [title, source, id])) > 0;
  }

  async delete(id: string, tenantId: string, userId: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM sessions WHERE id = $1 AND tenant_id = $2 AND user_id = $3', [id, tenantId, userId])) > 0;
  }

  async list(q: SessionFilter): Promise<SessionRow[]> {
    const args: unknown[] = [q.tenantId, q.userId];
    const p = (v: unknown): string => { args.push(v); return `$${args.length}`; };
    const where = ['s.tenant_id = $1', 's.user_id = $2'];
    if (q.folderId !== undefined) {
      if (q.folderId === null) where.push('s.folder_id IS NULL');
      else where.push(`s.folder_id = ${p(q.folderId)}`);
    }
    if (q.q) {
      // SQLite's LIKE folds ASCII case only; ILIKE under COLLATE "C" does the same.
      const like = p(`%${q.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`(s.title ILIKE ${like} ESCAPE '\\' OR EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id AND m.role IN ('user', 'assistant')
        AND m.content ILIKE ${like} ESCAPE '\\'))`);
    }
    if (q.after) {
      const at = p(q.after.updatedAt);
      where.push(`(s.updated_at < ${at} OR (s.updated_at = ${at} AND s.id < ${p(q.after.id)}))`);
    }
    const limit = p(q.limit);
    return this.db.query<SessionRow>(`SELECT ${SESSION_COLS.split(', ').map((c) => `s.${c}`).join(', ')} FROM sessions s WHERE ${where.join(' AND ')}
      ORDER BY s.updated_at DESC, s.id DESC LIMIT ${limit}`, args);
  }

  private async appendTx(sessionId: string, messages: NewMessage[], now: string): Promise<void> {
    await this.db.query('SELECT id FROM sessions WHERE id = $1 FOR UPDATE', [sessionId]);
    const [m] = await this.db.query<{ m: number }>('SELECT COALESCE(MAX(seq), 0) AS m FROM messages WHERE session_id = $1', [sessionId]);
    let seq = m!.m;
    const cols: unknown[][] = [[], [], [], [], [], [], [], [], [], [], [], [], []];
    for (const x of messages) {
      const v = [x.id, sessionId, ++seq, x.role, x.content, x.parts, x.tool_calls, x.tool_call_id, x.name, x.turn_id, x.trace, x.receipt, x.created_at];
      v.forEach((val, i) => cols[i]!.push(val));
    }
    await this.db.exec(`INSERT INTO messages (${MESSAGE_COLS}) SELECT ${MESSAGE_COLS} FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[],
      $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[]) AS t(${MESSAGE_COLS})`, cols);
    await this.db.exec('UPDATE sessions SET message_count = message_count + $1, updated_at = $2 WHERE id = $3', [messages.length, now, sessionId]);
  }

  async appendMessages(sessionId: string, messages: NewMessage[], now: string): Promise<void> {
    await this.db.tx(() => this.appendTx(sessionId, messages, now));
  }

  async messages(sessionId: string): Promise<MessageRow[]> {
    return this.db.query<MessageRow>(`SELECT ${MESSAGE_COLS} FROM messages WHERE session_id = $1 ORDER BY seq`, [sessionId]);
  }
}

const FOLDER_SELECT = `SELECT f.id, f.tenant_id, f.user_id, f.name, f.created_at, f.updated_at,
  (SELECT COUNT(*) FROM sessions s WHERE s.folder_id = f.id) AS session_count FROM folders f`;

/** `FolderStore` on one schema. */
export class PgFolderStore implements FolderStore {
  constructor(private readonly db: PgDb) {}

  async create(id: string, tenantId: string, userId: string, name: string, now: string): Promise<void> {
    await this.db.exec('INSERT INTO folders (id, tenant_id, user_id, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)', [id, tenantId, userId, name, now]);
  }

  async get(id: string, tenantId: string, userId: string): Promise<FolderRow | undefined> {
    const [r] = await this.db.query<FolderRow>(`${FOLDER_SELECT} WHERE f.id = $1 AND f.tenant_id = $2 AND f.user_id = $3`, [id, tenantId, userId]);
    return r;
  }

  async list(tenantId: string, userId: string): Promise<FolderRow[]> {
    // SQLite's COLLATE NOCASE folds ASCII only, as lower() does under COLLATE "C".
    return this.db.query<FolderRow>(`${FOLDER_SELECT} WHERE f.tenant_id = $1 AND f.user_id = $2 ORDER BY lower(f.name), f.id`, [tenantId, userId]);
  }

  async rename(id: string, tenantId: string, userId: string, name: string, now: string): Promise<boolean> {
    return (await this.db.exec('UPDATE folders SET name = $1, updated_at = $2 WHERE id = $3 AND tenant_id = $4 AND user_id = $5', [name, now, id, tenantId, userId])) > 0;
  }

  async delete(id: string, tenantId: string, userId: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM folders WHERE id = $1 AND tenant_id = $2 AND user_id = $3', [id, tenantId, userId])) > 0;
  }
}
