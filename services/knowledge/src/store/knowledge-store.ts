/**
 * The knowledge service's SQLite store: the only code of the service that touches SQLite.
 * Prepared statements are built once. Visibility (spec "Knowledge" visibility table) is applied in
 * SQL on every read path through `VISIBLE`, with the viewer's audience set resolved up front.
 */
import type Database from 'better-sqlite3';
import { openDb, type Db } from '../../../shared/db/open.js';

/** Who is reading: resolved once per request. */
export interface Viewer {
  tenantId: string;
  userId: string;
  /** admin, tenant_admin or platform_admin: sees everything of the tenant. */
  admin: boolean;
  /** Audience tags the viewer belongs to (memberships plus principal groups). */
  audiences: string[];
}

/** A new document. */
export interface NewDocument {
  id: string;
  tenant_id: string;
  title: string;
  source_type: 'file' | 'text' | 'batch';
  filename: string | null;
  mime_type: string | null;
  bytes: number | null;
  object_sha256: string | null;
  owner_user_id: string;
  creator_user_id: string;
  visibility_mode: 'private' | 'shared' | 'restricted';
  tags: string[];
  metadata: Record<string, unknown>;
  audience_tags: string[];
  user_grants: string[];
  batch_id: string | null;
  now: string;
}

/** A document row (JSON columns parsed): the new-document fields plus indexing state. */
export interface DocumentRow extends Omit<NewDocument, 'now'> {
  status: 'indexing' | 'indexed' | 'failed';
  chunks_indexed: number;
  chunks_embedded: number;
  last_error: string | null;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A chunk to index. */
export interface NewChunk { chunk_index: number; heading: string | null; content: string; titleTerms: string; bodyTerms: string }

/** A chunk joined with its document's display fields. */
export interface ChunkHit { chunk_id: number; document_id: string; chunk_index: number; heading: string | null; content: string; title: string }

/** A wiki page row. */
export interface WikiRow {
  tenant_id: string; topic: string; title: string; summary: string; tags: string[]; content: string;
  owner_user_id: string; visibility_mode: 'private' | 'shared' | 'restricted'; audience_tags: string[]; user_grants: string[];
  created_by: string; updated_by: string; created_at: string; updated_at: string;
}

/** A job row (progress of long work). */
export interface JobRow { id: string; tenant_id: string; kind: string; status: string; owner_user_id: string; total: number; done: number; error: string | null; created_at: string; updated_at: string }

const VISIBLE = `(@admin = 1 OR d.owner_user_id = @uid
  OR (d.visibility_mode = 'shared' AND (
        NOT EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id)
        OR EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id AND a.audience_tag IN (SELECT value FROM json_each(@aud)))))
  OR (d.visibility_mode = 'restricted' AND (
        EXISTS (SELECT 1 FROM document_grants g WHERE g.document_id = d.id AND g.user_id = @uid)
        OR EXISTS (SELECT 1 FROM document_audiences a WHERE a.document_id = d.id AND a.audience_tag IN (SELECT value FROM json_each(@aud))))))`;

function viewerParams(v: Viewer): { admin: number; uid: string; aud: string; tenant: string } {
  return { admin: v.admin ? 1 : 0, uid: v.userId, aud: JSON.stringify(v.audiences), tenant: v.tenantId };
}

type RawDoc = Omit<DocumentRow, 'tags' | 'metadata' | 'audience_tags' | 'user_grants'> & { tags: string; metadata: string; audience_tags: string | null; user_grants: string | null };

const DOC_COLUMNS = `d.id, d.tenant_id, d.title, d.source_type, d.filename, d.mime_type, d.bytes, d.object_sha256, d.owner_user_id, d.creator_user_id,
  d.visibility_mode, d.tags, d.metadata, d.status, d.chunks_indexed, d.chunks_embedded, d.last_error, d.archived_at, d.batch_id, d.created_at, d.updated_at,
  (SELECT json_group_array(audience_tag) FROM document_audiences WHERE document_id = d.id) AS audience_tags,
  (SELECT json_group_array(user_id) FROM document_grants WHERE document_id = d.id) AS user_grants`;

function parseDoc(r: RawDoc): DocumentRow {
  return {
    ...r,
    tags: JSON.parse(r.tags) as string[],
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
    audience_tags: r.audience_tags ? (JSON.parse(r.audience_tags) as string[]).sort() : [],
    user_grants: r.user_grants ? (JSON.parse(r.user_grants) as string[]).sort() : [],
  };
}

/** The store. Open with `KnowledgeStore.open`. */
export class KnowledgeStore {
  private readonly s: Record<string, Database.Statement>;
  private vecDims = 0;
  private vecStmts: { insert: Database.Statement; del: Database.Statement; knn: Database.Statement } | null = null;

  private constructor(readonly db: Db) {
    const p = (sql: string): Database.Statement => db.prepare(sql);
    this.s = {
      insertDoc: p(`INSERT INTO documents (id, tenant_id, title, source_type, filename, mime_type, bytes, object_sha256, owner_user_id, creator_user_id,
        visibility_mode, tags, metadata, status, batch_id, created_at, updated_at)
        VALUES (@id, @tenant_id, @title, @source_type, @filename, @mime_type, @bytes, @object_sha256, @owner_user_id, @creator_user_id,
        @visibility_mode, @tags, @metadata, 'indexing', @batch_id, @now, @now)`),
      insertAudience: p('INSERT OR IGNORE INTO document_audiences (document_id, audience_tag) VALUES (?, ?)'),
      insertGrant: p('INSERT OR IGNORE INTO document_grants (document_id, user_id) VALUES (?, ?)'),
      insertChunk: p('INSERT INTO chunks (document_id, chunk_index, heading, content) VALUES (?, ?, ?, ?)'),
      insertFts: p('INSERT INTO chunks_fts (rowid, title, body) VALUES (?, ?, ?)'),
      chunkIdsOf: p('SELECT id FROM chunks WHERE document_id = ?'),
      deleteFts: p('DELETE FROM chunks_fts WHERE rowid = ?'),
      deleteVec: p('DELETE FROM chunk_vectors WHERE chunk_id = ?'),
      deleteChunks: p('DELETE FROM chunks WHERE document_id = ?'),
      setIndexed: p(`UPDATE documents SET status = @status, chunks_indexed = @chunks, chunks_embedded = @embedded, last_error = @error, content = COALESCE(@content, content), updated_at = @now WHERE id = @id`),
      setContent: p('UPDATE documents SET content = ?, updated_at = ? WHERE id = ?'),
      setFailed: p(`UPDATE documents SET status = 'failed', last_error = ?, updated_at = ? WHERE id = ?`),
      setArchived: p('UPDATE documents SET archived_at = ?, updated_at = ? WHERE id = ?'),
      setGovernance: p('UPDATE documents SET visibility_mode = @visibility, owner_user_id = @owner, title = @title, updated_at = @now WHERE id = @id'),
      clearAudiences: p('DELETE FROM document_audiences WHERE document_id = ?'),
      clearGrants: p('DELETE FROM document_grants WHERE document_id = ?'),
      resetChunksEmbedded: p('UPDATE chunks SET embedded = 0 WHERE document_id = ?'),
      reembedDoc: p(`UPDATE documents SET chunks_embedded = 0, status = CASE WHEN @dense = 1 AND status = 'indexed' AND chunks_indexed > 0 THEN 'indexing' ELSE status END WHERE id = @id`),
      getDoc: p(`SELECT ${DOC_COLUMNS} FROM documents d WHERE d.id = @id AND d.tenant_id = @tenant`),
      getVisibleDoc: p(`SELECT ${DOC_COLUMNS} FROM documents d WHERE d.id = @id AND d.tenant_id = @tenant AND ${VISIBLE}`),
      contentOf: p('SELECT content FROM documents WHERE id = ?'),
      deleteDoc: p('DELETE FROM documents WHERE id = ?'),
      chunksOfDoc: p('SELECT id, chunk_index, heading, content FROM chunks WHERE document_id = ? ORDER BY chunk_index'),
      sparse: p(`SELECT c.id AS chunk_id, c.document_id, bm25(chunks_fts, @wt, 1.0) AS score
        FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id
        WHERE chunks_fts MATCH @match AND d.tenant_id = @tenant AND d.archived_at IS NULL AND ${VISIBLE}
        ORDER BY score LIMIT @limit`),
      sparseFast: p(`SELECT c.id AS chunk_id, c.document_id, bm25(chunks_fts, @wt, 1.0) AS score
        FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id
        WHERE chunks_fts MATCH @match AND d.tenant_id = @tenant AND d.archived_at IS NULL
        ORDER BY score LIMIT @limit`),
      ftsOnly: p('SELECT rowid AS chunk_id, bm25(chunks_fts, @wt, 1.0) AS score FROM chunks_fts WHERE chunks_fts MATCH @match ORDER BY score LIMIT @limit'),
      visibleChunks: p(`SELECT c.id AS chunk_id, c.document_id FROM chunks c JOIN documents d ON d.id = c.document_id
        WHERE c.id IN (SELECT value FROM json_each(@ids)) AND d.tenant_id = @tenant AND d.archived_at IS NULL AND ${VISIBLE}`),
      hits: p(`SELECT c.id AS chunk_id, c.document_id, c.chunk_index, c.heading, c.content, d.title FROM chunks c JOIN documents d ON d.id = c.document_id
        WHERE c.id IN (SELECT value FROM json_each(?))`),
      vectorsOf: p('SELECT chunk_id, vec FROM chunk_vectors WHERE chunk_id IN (SELECT value FROM json_each(?))'),
      insertVector: p('INSERT OR REPLACE INTO chunk_vectors (chunk_id, vec) VALUES (?, ?)'),
      markEmbedded: p('UPDATE chunks SET embedded = 1 WHERE id = ? AND embedded = 0'),
      bumpEmbedded: p('UPDATE documents SET chunks_embedded = chunks_embedded + ?, status = CASE WHEN status = \'indexing\' AND chunks_embedded + ? >= chunks_indexed THEN \'indexed\' ELSE status END, updated_at = ? WHERE id = ?'),
      unembedded: p(`SELECT c.id AS chunk_id, c.document_id, c.heading, c.content, d.title FROM chunks c JOIN documents d ON d.id = c.document_id
        WHERE c.embedded = 0 ORDER BY c.id LIMIT ?`),
      countUnembedded: p('SELECT count(*) AS n FROM chunks WHERE embedded = 0'),
      countChunks: p('SELECT count(*) AS n FROM chunks'),
      resetEmbedded: p('UPDATE chunks SET embedded = 0'),
      resetDocEmbedded: p(`UPDATE documents SET chunks_embedded = 0`),
      clearVectors: p('DELETE FROM chunk_vectors'),
      docsIndexingDone: p(`UPDATE documents SET status = 'indexed' WHERE status = 'indexing' AND chunks_embedded >= chunks_indexed`),
      getMeta: p('SELECT value FROM meta WHERE key = ?'),
      setMeta: p('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      // audiences
      listAudiences: p(`SELECT a.tag, a.description, a.created_at, a.updated_at,
        (SELECT count(*) FROM audience_members m WHERE m.tenant_id = a.tenant_id AND m.tag = a.tag) AS member_count
        FROM audiences a WHERE a.tenant_id = ? ORDER BY a.tag`),
      getAudience: p('SELECT tag, description, created_at, updated_at FROM audiences WHERE tenant_id = ? AND tag = ?'),
      upsertAudience: p(`INSERT INTO audiences (tenant_id, tag, description, created_at, updated_at) VALUES (@tenant, @tag, @description, @now, @now)
        ON CONFLICT (tenant_id, tag) DO UPDATE SET description = COALESCE(excluded.description, audiences.description), updated_at = excluded.updated_at`),
      ensureAudience: p(`INSERT OR IGNORE INTO audiences (tenant_id, tag, description, created_at, updated_at) VALUES (?, ?, NULL, ?, ?)`),
      clearMembers: p('DELETE FROM audience_members WHERE tenant_id = ? AND tag = ?'),
      addMember: p('INSERT OR IGNORE INTO audience_members (tenant_id, tag, user_id) VALUES (?, ?, ?)'),
      membersOf: p('SELECT user_id FROM audience_members WHERE tenant_id = ? AND tag = ? ORDER BY user_id'),
      audiencesOfUser: p('SELECT tag FROM audience_members WHERE tenant_id = ? AND user_id = ?'),
      // wiki
      getWiki: p('SELECT * FROM wiki_pages WHERE tenant_id = ? AND topic = ?'),
      listWiki: p('SELECT * FROM wiki_pages WHERE tenant_id = ? ORDER BY topic'),
      upsertWiki: p(`INSERT INTO wiki_pages (tenant_id, topic, title, summary, tags, content, owner_user_id, visibility_mode, audience_tags, user_grants, created_by, updated_by, created_at, updated_at)
        VALUES (@tenant_id, @topic, @title, @summary, @tags, @content, @owner_user_id, @visibility_mode, @audience_tags, @user_grants, @created_by, @updated_by, @created_at, @updated_at)
        ON CONFLICT (tenant_id, topic) DO UPDATE SET title = excluded.title, summary = excluded.summary, tags = excluded.tags, content = excluded.content,
          visibility_mode = excluded.visibility_mode, audience_tags = excluded.audience_tags, user_grants = excluded.user_grants,
          updated_by = excluded.updated_by, updated_at = excluded.updated_at`),
      deleteWiki: p('DELETE FROM wiki_pages WHERE tenant_id = ? AND topic = ?'),
      // jobs
      insertJob: p(`INSERT INTO jobs (id, tenant_id, kind, status, owner_user_id, total, done, created_at, updated_at) VALUES (?, ?, ?, 'running', ?, ?, 0, ?, ?)`),
      progressJob: p('UPDATE jobs SET done = ?, total = ?, status = ?, error = ?, updated_at = ? WHERE id = ?'),
      getJob: p('SELECT * FROM jobs WHERE id = ? AND tenant_id = ?'),
      runningJobs: p(`UPDATE jobs SET status = 'failed', error = 'interrupted by a restart', updated_at = ? WHERE status = 'running'`),
    };
    this.s.runningJobs!.run(new Date().toISOString());
  }

  /** Open `<dbDir>/knowledge.sqlite` and migrate. */
  static open(dbDir: string, migrationsDir: string): KnowledgeStore {
    return new KnowledgeStore(openDb({ dbDir, store: 'knowledge', migrationsDir }));
  }

  /** Run `fn` in one transaction. */
  tx<T>(fn: () => T): T { return this.db.transaction(fn)(); }

  // ---- meta and the vector index -----------------------------------------------------------

  getMeta(key: string): string | null { return (this.s.getMeta!.get(key) as { value: string } | undefined)?.value ?? null; }
  setMeta(key: string, value: string): void { this.s.setMeta!.run(key, value); }

  /**
   * Make sure the sign-bit vec0 index exists for `dims`. When the stored width differs (EMBEDDING_DIMS
   * changed), the index and stored vectors are dropped and every chunk is marked for re-embedding.
   * @returns true when the collection was recreated.
   */
  ensureVectorIndex(dims: number): boolean {
    const prev = Number(this.getMeta('embedding_dims') ?? '0');
    let recreated = false;
    this.tx(() => {
      if (prev !== dims) {
        this.db.exec('DROP TABLE IF EXISTS chunk_vec_bits');
        this.s.clearVectors!.run();
        this.s.resetEmbedded!.run();
        this.s.resetDocEmbedded!.run();
        recreated = prev !== 0;
        this.setMeta('embedding_dims', String(dims));
      }
      this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS chunk_vec_bits USING vec0 (embedding bit[${dims}])`);
    });
    this.vecDims = dims;
    this.vecStmts = {
      insert: this.db.prepare('INSERT OR REPLACE INTO chunk_vec_bits (rowid, embedding) VALUES (?, vec_quantize_binary(?))'),
      del: this.db.prepare('DELETE FROM chunk_vec_bits WHERE rowid = ?'),
      knn: this.db.prepare('SELECT rowid AS chunk_id, distance FROM chunk_vec_bits WHERE embedding MATCH vec_quantize_binary(?) AND k = ?'),
    };
    return recreated;
  }

  /** Store vectors of chunks (float32 for rescoring, sign bits for the KNN index). */
  putVectors(items: Array<{ chunkId: number; documentId: string; vec: Buffer }>, now: string): void {
    if (!this.vecStmts) throw new Error('vector index not initialised');
    const perDoc = new Map<string, number>();
    this.tx(() => {
      for (const it of items) {
        // Only chunks that still exist and lack a vector: a chunk deleted or embedded meanwhile is skipped.
        if (this.s.markEmbedded!.run(it.chunkId).changes === 0) continue;
        this.s.insertVector!.run(it.chunkId, it.vec);
        // vec0 refuses INSERT OR REPLACE over an existing rowid (a retitled chunk keeps its old bits until now).
        this.vecStmts!.del.run(BigInt(it.chunkId));
        this.vecStmts!.insert.run(BigInt(it.chunkId), it.vec);
        perDoc.set(it.documentId, (perDoc.get(it.documentId) ?? 0) + 1);
      }
      for (const [doc, n] of perDoc) this.s.bumpEmbedded!.run(n, n, now, doc);
    });
  }

  /** Nearest chunks by Hamming distance over sign bits (candidates for rescoring). */
  knnBits(query: Buffer, k: number): Array<{ chunk_id: number; distance: number }> {
    if (!this.vecStmts) return [];
    return this.vecStmts.knn.all(query, Math.min(4096, Math.max(1, k))) as Array<{ chunk_id: number; distance: number }>;
  }

  /** Float vectors of chunks. */
  vectorsOf(ids: number[]): Map<number, Buffer> {
    const out = new Map<number, Buffer>();
    for (const r of this.s.vectorsOf!.all(JSON.stringify(ids)) as Array<{ chunk_id: number; vec: Buffer }>) out.set(r.chunk_id, r.vec);
    return out;
  }

  /** Chunks still lacking a vector, oldest first. */
  unembedded(limit: number): Array<{ chunk_id: number; document_id: string; heading: string | null; content: string; title: string }> {
    return this.s.unembedded!.all(limit) as Array<{ chunk_id: number; document_id: string; heading: string | null; content: string; title: string }>;
  }

  countUnembedded(): number { return (this.s.countUnembedded!.get() as { n: number }).n; }
  countChunks(): number { return (this.s.countChunks!.get() as { n: number }).n; }

  /** Documents that wait for vectors no model will make (no model): mark them indexed. */
  finishWithoutVectors(): void { this.s.docsIndexingDone!.run(); }

  // ---- documents -----------------------------------------------------------------------------

  insertDocument(d: NewDocument): void {
    this.s.insertDoc!.run({ ...d, tags: JSON.stringify(d.tags), metadata: JSON.stringify(d.metadata) });
    for (const t of d.audience_tags) this.s.insertAudience!.run(d.id, t);
    for (const u of d.user_grants) this.s.insertGrant!.run(d.id, u);
  }

  /** Replace a document's chunks (FTS rows and vectors too). @returns the new chunk ids. */
  replaceChunks(documentId: string, chunks: NewChunk[]): number[] {
    this.removeChunks(documentId);
    const ids: number[] = [];
    for (const c of chunks) {
      const id = Number(this.s.insertChunk!.run(documentId, c.chunk_index, c.heading, c.content).lastInsertRowid);
      this.s.insertFts!.run(id, c.titleTerms, c.bodyTerms);
      ids.push(id);
    }
    return ids;
  }

  /** Append chunks without touching existing ones (benchmarks building large indexes). */
  appendChunksForBench(documentId: string, chunks: NewChunk[]): number[] {
    return chunks.map((c) => Number(this.s.insertChunk!.run(documentId, c.chunk_index, c.heading, c.content).lastInsertRowid));
  }

  private removeChunks(documentId: string): void {
    for (const { id } of this.s.chunkIdsOf!.all(documentId) as Array<{ id: number }>) {
      this.s.deleteFts!.run(id);
      this.s.deleteVec!.run(id);
      this.vecStmts?.del.run(BigInt(id));
    }
    this.s.deleteChunks!.run(documentId);
  }

  setIndexed(id: string, fields: { status: 'indexing' | 'indexed' | 'failed'; chunks: number; embedded: number; error: string | null; content: string | null }, now: string): void {
    this.s.setIndexed!.run({ id, ...fields, now });
  }

  setTitle(id: string, title: string): void { this.db.prepare('UPDATE documents SET title = ? WHERE id = ?').run(title, id); }
  setFailed(id: string, error: string, now: string): void { this.s.setFailed!.run(error, now, id); }
  setArchived(id: string, at: string | null, now: string): void { this.s.setArchived!.run(at, now, id); }

  /**
   * Change a document's governance fields (and title) in one transaction. Visibility lives on the
   * document row and its `document_audiences` / `document_grants` rows only (chunks carry none; every
   * read path joins them through `VISIBLE`), so the change applies to search, list, detail and
   * content at once. A new title also rewrites the chunks' FTS title terms (`fts` holds each chunk's
   * analysed title and body) and marks the chunks for re-embedding (the embedding text starts with
   * the title); the old vectors keep serving until the new ones replace them.
   */
  updateGovernance(id: string, g: {
    visibility: DocumentRow['visibility_mode']; owner: string; audiences: string[]; grants: string[]; title: string;
    fts: Array<{ chunkId: number; titleTerms: string; bodyTerms: string }> | null; dense: boolean;
  }, now: string): void {
    this.tx(() => {
      this.s.setGovernance!.run({ id, visibility: g.visibility, owner: g.owner, title: g.title, now });
      this.s.clearAudiences!.run(id);
      this.s.clearGrants!.run(id);
      for (const t of g.audiences) this.s.insertAudience!.run(id, t);
      for (const u of g.grants) this.s.insertGrant!.run(id, u);
      if (g.fts) {
        for (const c of g.fts) {
          this.s.deleteFts!.run(c.chunkId);
          this.s.insertFts!.run(c.chunkId, c.titleTerms, c.bodyTerms);
        }
        this.s.resetChunksEmbedded!.run(id);
        this.s.reembedDoc!.run({ id, dense: g.dense ? 1 : 0 });
      }
    });
  }

  getDocument(tenant: string, id: string): DocumentRow | null {
    const r = this.s.getDoc!.get({ id, tenant }) as RawDoc | undefined;
    return r ? parseDoc(r) : null;
  }

  /** The document when `viewer` may read it, else null (absent and invisible look the same). */
  getVisibleDocument(viewer: Viewer, id: string): DocumentRow | null {
    const r = this.s.getVisibleDoc!.get({ id, ...viewerParams(viewer) }) as RawDoc | undefined;
    return r ? parseDoc(r) : null;
  }

  contentOf(id: string): string | null { return (this.s.contentOf!.get(id) as { content: string | null } | undefined)?.content ?? null; }

  chunksOf(id: string): Array<{ id: number; chunk_index: number; heading: string | null; content: string }> {
    return this.s.chunksOfDoc!.all(id) as Array<{ id: number; chunk_index: number; heading: string | null; content: string }>;
  }

  deleteDocument(id: string): void {
    this.tx(() => { this.removeChunks(id); this.s.deleteDoc!.run(id); });
  }

  /**
   * Documents visible to `viewer`, newest first, keyset-paginated on (created_at, id).
   * Filters: archived (include / only), status, batch.
   */
  listDocuments(viewer: Viewer, opts: { limit: number; cursor: { created_at: string; id: string } | null; archived: 'exclude' | 'include' | 'only'; status?: string; q?: string }): DocumentRow[] {
    const where = ['d.tenant_id = @tenant', VISIBLE];
    const params: Record<string, unknown> = { ...viewerParams(viewer), limit: opts.limit };
    if (opts.archived === 'exclude') where.push('d.archived_at IS NULL');
    if (opts.archived === 'only') where.push('d.archived_at IS NOT NULL');
    if (opts.status) { where.push('d.status = @status'); params.status = opts.status; }
    if (opts.q) { where.push("d.title LIKE @q ESCAPE '\\'"); params.q = `%${opts.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`; }
    if (opts.cursor) { where.push('(d.created_at < @cat OR (d.created_at = @cat AND d.id < @cid))'); params.cat = opts.cursor.created_at; params.cid = opts.cursor.id; }
    const sql = `SELECT ${DOC_COLUMNS} FROM documents d WHERE ${where.join(' AND ')} ORDER BY d.created_at DESC, d.id DESC LIMIT @limit`;
    return (this.db.prepare(sql).all(params) as RawDoc[]).map(parseDoc);
  }

  // ---- search --------------------------------------------------------------------------------

  /**
   * BM25 over visible, unarchived chunks; `score` is FTS5's (lower is better). Fast path: rank in
   * FTS5 alone (no joins per match), then keep the visible rows of the top `4 * limit`; only when
   * visibility removed too many does the joined query run over every match.
   */
  sparse(viewer: Viewer, match: string, limit: number, titleWeight: number): Array<{ chunk_id: number; document_id: string; score: number }> {
    const wide = limit * 4;
    const top = this.s.ftsOnly!.all({ match, wt: titleWeight, limit: wide }) as Array<{ chunk_id: number; score: number }>;
    const allowed = this.visibleChunkIds(viewer, top.map((r) => r.chunk_id));
    const out: Array<{ chunk_id: number; document_id: string; score: number }> = [];
    for (const r of top) {
      const doc = allowed.get(r.chunk_id);
      if (doc !== undefined) { out.push({ chunk_id: r.chunk_id, document_id: doc, score: r.score }); if (out.length >= limit) return out; }
    }
    if (top.length < wide) return out;
    const params = viewer.admin ? { match, limit, wt: titleWeight, tenant: viewer.tenantId } : { match, limit, wt: titleWeight, ...viewerParams(viewer) };
    return (viewer.admin ? this.s.sparseFast! : this.s.sparse!).all(params) as Array<{ chunk_id: number; document_id: string; score: number }>;
  }

  /** The subset of `ids` the viewer may read (unarchived). */
  visibleChunkIds(viewer: Viewer, ids: number[]): Map<number, string> {
    const out = new Map<number, string>();
    if (ids.length === 0) return out;
    for (const r of this.s.visibleChunks!.all({ ids: JSON.stringify(ids), ...viewerParams(viewer) }) as Array<{ chunk_id: number; document_id: string }>) out.set(r.chunk_id, r.document_id);
    return out;
  }

  hits(ids: number[]): Map<number, ChunkHit> {
    const out = new Map<number, ChunkHit>();
    for (const r of this.s.hits!.all(JSON.stringify(ids)) as ChunkHit[]) out.set(r.chunk_id, r);
    return out;
  }

  // ---- audiences -----------------------------------------------------------------------------

  listAudiences(tenant: string): Array<{ tag: string; description: string | null; created_at: string; updated_at: string; member_count: number }> {
    return this.s.listAudiences!.all(tenant) as Array<{ tag: string; description: string | null; created_at: string; updated_at: string; member_count: number }>;
  }
  getAudience(tenant: string, tag: string): { tag: string; description: string | null; created_at: string; updated_at: string } | null {
    return (this.s.getAudience!.get(tenant, tag) as { tag: string; description: string | null; created_at: string; updated_at: string } | undefined) ?? null;
  }
  upsertAudience(tenant: string, tag: string, description: string | null, now: string): void { this.s.upsertAudience!.run({ tenant, tag, description, now }); }
  ensureAudiences(tenant: string, tags: string[], now: string): void { for (const t of tags) this.s.ensureAudience!.run(tenant, t, now, now); }
  setMembers(tenant: string, tag: string, users: string[]): void {
    this.tx(() => { this.s.clearMembers!.run(tenant, tag); for (const u of users) this.s.addMember!.run(tenant, tag, u); });
  }
  membersOf(tenant: string, tag: string): string[] { return (this.s.membersOf!.all(tenant, tag) as Array<{ user_id: string }>).map((r) => r.user_id); }
  audiencesOfUser(tenant: string, user: string): string[] { return (this.s.audiencesOfUser!.all(tenant, user) as Array<{ tag: string }>).map((r) => r.tag); }

  // ---- wiki ----------------------------------------------------------------------------------

  getWiki(tenant: string, topic: string): WikiRow | null {
    const r = this.s.getWiki!.get(tenant, topic) as (Omit<WikiRow, 'tags' | 'audience_tags' | 'user_grants'> & { tags: string; audience_tags: string; user_grants: string }) | undefined;
    return r ? { ...r, tags: JSON.parse(r.tags) as string[], audience_tags: JSON.parse(r.audience_tags) as string[], user_grants: JSON.parse(r.user_grants) as string[] } : null;
  }
  listWiki(tenant: string): WikiRow[] {
    return (this.s.listWiki!.all(tenant) as Array<Omit<WikiRow, 'tags' | 'audience_tags' | 'user_grants'> & { tags: string; audience_tags: string; user_grants: string }>)
      .map((r) => ({ ...r, tags: JSON.parse(r.tags) as string[], audience_tags: JSON.parse(r.audience_tags) as string[], user_grants: JSON.parse(r.user_grants) as string[] }));
  }
  upsertWiki(w: WikiRow): void {
    this.s.upsertWiki!.run({ ...w, tags: JSON.stringify(w.tags), audience_tags: JSON.stringify(w.audience_tags), user_grants: JSON.stringify(w.user_grants) });
  }
  deleteWiki(tenant: string, topic: string): boolean { return this.s.deleteWiki!.run(tenant, topic).changes > 0; }

  // ---- jobs ----------------------------------------------------------------------------------

  createJob(id: string, tenant: string, kind: string, owner: string, total: number, now: string): void { this.s.insertJob!.run(id, tenant, kind, owner, total, now, now); }
  progressJob(id: string, done: number, total: number, status: string, error: string | null, now: string): void { this.s.progressJob!.run(done, total, status, error, now, id); }
  getJob(tenant: string, id: string): JobRow | null { return (this.s.getJob!.get(id, tenant) as JobRow | undefined) ?? null; }

  /** Documents and chunks of a batch, and how many chunks have vectors. */
  batchProgress(batchId: string): { documents: number; indexed: number; failed: number; chunks: number; embedded: number } {
    return this.db.prepare(`SELECT count(*) AS documents, coalesce(sum(status = 'indexed'), 0) AS indexed, coalesce(sum(status = 'failed'), 0) AS failed,
      coalesce(sum(chunks_indexed), 0) AS chunks, coalesce(sum(chunks_embedded), 0) AS embedded FROM documents WHERE batch_id = ?`).get(batchId) as { documents: number; indexed: number; failed: number; chunks: number; embedded: number };
  }

  /** The configured vector width in use. */
  get dims(): number { return this.vecDims; }

  close(): void { if (this.db.open) this.db.close(); }
}
