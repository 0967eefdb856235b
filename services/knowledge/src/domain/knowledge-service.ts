/**
 * The knowledge domain: ingestion (file, text, batch), indexing (chunks -> FTS5 terms, vectors in
 * the background), hybrid search with reciprocal-rank fusion, documents, wiki, audiences and jobs.
 * Visibility (spec visibility table) is decided here for wiki pages and in the store's SQL for
 * documents and chunks; every read path goes through one of the two.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { AppError, invalidRequest, notFound } from '../../../shared/http/errors.js';
import type { Principal } from '../../../shared/identity/principal.js';
import { ulidFactory } from '../../../shared/identity/ulid.js';
import type { Embedder } from '../../../embedder/src/contracts.js';
import { analyze, ftsOrQuery, queryTerms } from '../../../embedder/src/text/analyzer.js';
import { dot, fromBlob, toBlob } from '../../../embedder/src/vector.js';
import type {
  BatchIngestRequest, BatchIngestResult, DocumentPatchRequest, DocumentView, IngestResult, JobView, KnowledgeSettings, KnowledgeStatus, SearchResult,
  VisibilityMode, WikiPage, WikiWriteRequest, Audience,
} from '../contracts.js';
import type { DocumentRow, KnowledgeStore, Viewer, WikiRow } from '../store/knowledge-store.js';
import type { ObjectStore } from '../store/object-store.js';
import { chunkText } from './chunking.js';
import { detectFormat, extractText, FORMAT_MIME, ParseError } from './parsers.js';
import { fuse, normalisedScore, RRF_K, type Ranked } from '../../../embedder/src/fusion.js';

/** Roles that see and manage every item of the tenant. */
export const ADMIN_ROLES = ['admin', 'tenant_admin', 'platform_admin'];
/** FTS5 bm25() weight of the title column against the body (tuned on SciFact train queries). */
export const TITLE_WEIGHT = 2.5;
/** Dense candidates below this cosine are not evidence at all. */
export const DENSE_MIN_SIMILARITY = 0.2;

const newId = ulidFactory();
const TAG = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** Turn-event sink (the TurnEventClient in production). */
export interface EventSink {
  emit(turnId: string, principalId: string, type: 'rag_chunks_retrieved', payload: unknown): void;
  deliver(timeoutMs?: number): Promise<boolean>;
}

/** Dependencies. */
export interface KnowledgeDeps {
  tenantId: string;
  store: KnowledgeStore;
  objects: ObjectStore;
  embedder: Embedder;
  settings: KnowledgeSettings;
  events: EventSink | null;
  logger: Logger;
}

function nowIso(): string { return new Date().toISOString(); }

function isAdmin(p: Principal): boolean { return p.roles.some((r) => ADMIN_ROLES.includes(r)); }

function cleanTags(tags: unknown, field: string): string[] {
  if (tags === undefined || tags === null) return [];
  if (!Array.isArray(tags)) throw invalidRequest(`${field} must be an array of strings`, field);
  const out = new Set<string>();
  for (const t of tags) {
    if (typeof t !== 'string' || !TAG.test(t)) throw invalidRequest(`${field} holds an invalid tag (letters, digits, . _ : -; at most 64)`, field);
    out.add(t);
  }
  return [...out];
}

function cleanUsers(users: unknown, field: string): string[] {
  if (users === undefined || users === null) return [];
  if (!Array.isArray(users)) throw invalidRequest(`${field} must be an array of user ids`, field);
  const out = new Set<string>();
  for (const u of users) {
    if (typeof u !== 'string' || u.length === 0 || u.length > 256) throw invalidRequest(`${field} holds an invalid user id`, field);
    out.add(u);
  }
  return [...out];
}

/** Text given to the model for a chunk: the title and heading give it context. */
export function embeddingText(title: string, heading: string | null, content: string): string {
  return heading ? `${title}\n${heading}\n${content}` : `${title}\n${content}`;
}

/** Document row -> view. */
export function documentView(d: DocumentRow): DocumentView {
  return {
    document_id: d.id, knowledge_item_id: d.id, title: d.title, source_type: d.source_type, filename: d.filename, mime_type: d.mime_type,
    bytes: d.bytes, status: d.status, chunks_indexed: d.chunks_indexed, chunks_embedded: d.chunks_embedded,
    owner_user_id: d.owner_user_id, creator_user_id: d.creator_user_id, visibility_mode: d.visibility_mode,
    audience_tags: d.audience_tags, user_grants: d.user_grants, tags: d.tags, metadata: d.metadata, archived_at: d.archived_at,
    last_error: d.last_error, batch_id: d.batch_id, created_at: d.created_at, updated_at: d.updated_at,
  };
}

/** The service. */
export class KnowledgeService {
  private pumping: Promise<void> | null = null;
  private closed = false;
  private reembed: { jobId: string; total: number; done: number; running: boolean } | null = null;

  constructor(private readonly d: KnowledgeDeps) {}

  /** Call once at start, after the vector index exists. */
  start(recreated: boolean): void {
    if (recreated) {
      const total = this.d.store.countChunks();
      const jobId = newId();
      this.d.store.createJob(jobId, this.d.tenantId, 'reembed', 'system', total, nowIso());
      this.reembed = { jobId, total, done: 0, running: true };
      this.d.logger.warn({ total }, 'EMBEDDING_DIMS changed: vector index recreated, re-embedding every chunk in the background');
    }
    void this.d.embedder.whenSettled().then((st) => {
      if (st.state === 'ready') this.kick();
      else {
        this.d.store.finishWithoutVectors();
        if (this.reembed) { this.reembed.running = false; this.d.store.progressJob(this.reembed.jobId, 0, this.reembed.total, 'failed', st.reason, nowIso()); }
      }
    });
  }

  /** Stop background work (in-flight embedding finishes). */
  async close(): Promise<void> {
    this.closed = true;
    await this.pumping?.catch(() => {});
  }

  // ---- viewers -------------------------------------------------------------------------------

  /** The viewer of a principal: admin flag and audiences (memberships plus the principal's groups). */
  viewerOf(p: Principal): Viewer {
    const audiences = new Set(this.d.store.audiencesOfUser(this.d.tenantId, p.id));
    for (const g of p.groups ?? []) audiences.add(g);
    return { tenantId: this.d.tenantId, userId: p.id, admin: isAdmin(p), audiences: [...audiences] };
  }

  /** A visible document, or 404 (absent and invisible answer the same). */
  visibleDocument(p: Principal, id: string): DocumentRow {
    const d = this.d.store.getVisibleDocument(this.viewerOf(p), id);
    if (!d) throw notFound(`no document ${id}`);
    return d;
  }

  /** A document the caller may change (owner or admin). 404 when invisible, 403 when visible only. */
  managedDocument(p: Principal, id: string): DocumentRow {
    const d = this.visibleDocument(p, id);
    if (!isAdmin(p) && d.owner_user_id !== p.id) throw new AppError(403, 'not_owner', 'only the owner or an admin may change this document');
    return d;
  }

  // ---- ingestion -----------------------------------------------------------------------------

  private indexChunks(doc: { id: string; title: string }, text: string): { chunkIds: number[]; texts: string[] } {
    const chunks = chunkText(text, { maxChars: this.d.settings.chunkChars, overlapChars: this.d.settings.chunkOverlapChars });
    const titleTerms = analyze(doc.title).join(' ');
    const rows = chunks.map((c) => ({
      chunk_index: c.index, heading: c.heading, content: c.content, titleTerms,
      bodyTerms: analyze(c.heading ? `${c.heading}\n${c.content}` : c.content).join(' '),
    }));
    const chunkIds = this.d.store.replaceChunks(doc.id, rows);
    return { chunkIds, texts: chunks.map((c) => embeddingText(doc.title, c.heading, c.content)) };
  }

  private denseWanted(): boolean {
    const st = this.d.embedder.status().state;
    return st === 'ready' || st === 'loading';
  }

  /** Embed `chunkIds` now (small ingests answer with vectors in place). Failures leave them to the pump. */
  private async embedNow(documentId: string, chunkIds: number[], texts: string[]): Promise<void> {
    if (!this.d.embedder.available || chunkIds.length === 0) return;
    try {
      const vecs = await this.d.embedder.embed(texts, 'bulk');
      this.d.store.putVectors(chunkIds.map((id, i) => ({ chunkId: id, documentId, vec: toBlob(vecs[i]!) })), nowIso());
    } catch (err) {
      this.d.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'embedding at ingest failed; the background pass retries');
      this.kick();
    }
  }

  /** Ingest an uploaded file as a private item of the caller. */
  async ingestFile(p: Principal, file: { filename: string; contentType: string | null; data: Buffer }, title: string | null): Promise<IngestResult> {
    if (file.data.length === 0) throw invalidRequest('the file is empty', 'file');
    if (file.data.length > this.d.settings.maxUploadBytes) throw new AppError(413, 'payload_too_large', `files are limited to ${this.d.settings.maxUploadBytes} bytes`);
    const format = detectFormat(file.filename, file.contentType, file.data);
    if (!format) throw new AppError(415, 'unsupported_format', 'unsupported file type; send PDF, DOCX, HTML, Markdown, text or CSV');
    const sha = this.d.objects.put(file.data);
    const id = newId();
    const now = nowIso();
    const baseTitle = title?.trim() || file.filename.replace(/\.[A-Za-z0-9]+$/, '') || 'Untitled';
    this.d.store.insertDocument({
      id, tenant_id: this.d.tenantId, title: baseTitle.slice(0, 500), source_type: 'file', filename: file.filename.slice(0, 255), mime_type: FORMAT_MIME[format],
      bytes: file.data.length, object_sha256: sha, owner_user_id: p.id, creator_user_id: p.id, visibility_mode: 'private',
      tags: [], metadata: { format }, audience_tags: [], user_grants: [], batch_id: null, now,
    });
    return this.parseAndIndex(id, format, file.data, title?.trim() ? null : baseTitle);
  }

  private async parseAndIndex(id: string, format: ReturnType<typeof detectFormat> & string, data: Buffer, fallbackTitle: string | null): Promise<IngestResult> {
    let text: string;
    let title: string;
    try {
      const out = await extractText(format, data);
      text = out.text;
      const current = this.d.store.getDocument(this.d.tenantId, id)!;
      title = fallbackTitle && out.title ? out.title.slice(0, 500) : current.title;
      if (title !== current.title) this.d.store.setTitle(id, title);
    } catch (err) {
      const msg = err instanceof ParseError ? err.message : 'the file could not be parsed';
      if (!(err instanceof ParseError)) this.d.logger.warn({ err }, 'parser failed');
      this.d.store.setFailed(id, msg, nowIso());
      throw Object.assign(new AppError(422, 'ingestion_failed', msg), { documentId: id });
    }
    return this.indexText(id, title, text);
  }

  private async indexText(id: string, title: string, text: string): Promise<IngestResult> {
    const dense = this.denseWanted();
    const { chunkIds, texts } = this.d.store.tx(() => {
      const r = this.indexChunks({ id, title }, text);
      this.d.store.setIndexed(id, { status: dense && r.chunkIds.length ? 'indexing' : 'indexed', chunks: r.chunkIds.length, embedded: 0, error: null, content: text }, nowIso());
      return r;
    });
    await this.embedNow(id, chunkIds, texts);
    const d = this.d.store.getDocument(this.d.tenantId, id)!;
    return { document_id: id, knowledge_item_id: id, title: d.title, chunks_indexed: d.chunks_indexed, status: d.status, visibility_mode: d.visibility_mode };
  }

  /** Ingest text as a private item of the caller. */
  async ingestText(p: Principal, title: string, content: string): Promise<IngestResult> {
    if (!content.trim()) throw invalidRequest('content is empty', 'content');
    const id = newId();
    this.d.store.insertDocument({
      id, tenant_id: this.d.tenantId, title: (title.trim() || 'Untitled').slice(0, 500), source_type: 'text', filename: null, mime_type: 'text/plain',
      bytes: Buffer.byteLength(content), object_sha256: null, owner_user_id: p.id, creator_user_id: p.id, visibility_mode: 'private',
      tags: [], metadata: {}, audience_tags: [], user_grants: [], batch_id: null, now: nowIso(),
    });
    return this.indexText(id, title.trim() || 'Untitled', content);
  }

  /** Resolve and check the governance fields of a batch, wiki write or document change. */
  private governance(p: Principal, body: { visibility_mode?: VisibilityMode; audience_tags?: unknown; user_grants?: unknown; owner_user_id?: string; confirm_tenant_wide?: boolean }): {
    visibility: VisibilityMode; audiences: string[]; grants: string[]; owner: string;
  } {
    const visibility = body.visibility_mode ?? 'private';
    const audiences = cleanTags(body.audience_tags, 'audience_tags');
    const grants = cleanUsers(body.user_grants, 'user_grants');
    const owner = body.owner_user_id ?? p.id;
    if (owner !== p.id && !isAdmin(p)) throw new AppError(403, 'owner_forbidden', 'only admins may make another user the owner of an item');
    if (visibility === 'shared' && audiences.length === 0 && body.confirm_tenant_wide !== true) {
      throw new AppError(400, 'confirm_tenant_wide_required', 'a shared item without audience_tags is visible to every user of the tenant; set confirm_tenant_wide: true to confirm');
    }
    if (visibility === 'private' && (audiences.length || grants.length)) {
      throw invalidRequest('private items take no audience_tags or user_grants (use restricted or shared)', 'visibility_mode');
    }
    if (visibility === 'shared' && grants.length) throw invalidRequest('user_grants apply to restricted items only', 'user_grants');
    return { visibility, audiences, grants, owner };
  }

  /** Batch ingest (spec). Sparse search covers every record on return; vectors follow in the background. */
  async ingestBatch(p: Principal, body: BatchIngestRequest): Promise<BatchIngestResult> {
    const g = this.governance(p, body);
    const tags = cleanTags(body.tags, 'tags');
    const now = nowIso();
    const batchId = newId();
    const jobId = batchId;
    const dense = this.denseWanted();
    const docs: BatchIngestResult['documents'] = [];
    const failed: BatchIngestResult['failed'] = [];
    let chunks = 0;
    this.d.store.tx(() => {
      this.d.store.ensureAudiences(this.d.tenantId, g.audiences, now);
      body.records.forEach((r, index) => {
        const title = typeof r.title === 'string' ? r.title.trim() : '';
        const content = typeof r.content === 'string' ? r.content : '';
        if (!title || !content.trim()) { failed.push({ index, error: 'a record needs a non-empty title and content' }); return; }
        const meta = r.metadata && typeof r.metadata === 'object' && !Array.isArray(r.metadata) ? r.metadata : {};
        const recTags = Array.isArray((meta as { tags?: unknown }).tags) ? (meta as { tags: unknown[] }).tags.filter((t): t is string => typeof t === 'string' && TAG.test(t)) : [];
        const id = newId();
        this.d.store.insertDocument({
          id, tenant_id: this.d.tenantId, title: title.slice(0, 500), source_type: 'batch', filename: null, mime_type: 'text/plain',
          bytes: Buffer.byteLength(content), object_sha256: null, owner_user_id: g.owner, creator_user_id: p.id, visibility_mode: g.visibility,
          tags: [...new Set([...tags, ...recTags])], metadata: meta, audience_tags: g.audiences, user_grants: g.grants, batch_id: batchId, now,
        });
        const { chunkIds } = this.indexChunks({ id, title: title.slice(0, 500) }, content);
        this.d.store.setIndexed(id, { status: dense && chunkIds.length ? 'indexing' : 'indexed', chunks: chunkIds.length, embedded: 0, error: null, content }, now);
        chunks += chunkIds.length;
        docs.push({ document_id: id, title: title.slice(0, 500), chunks_indexed: chunkIds.length });
      });
      this.d.store.createJob(jobId, this.d.tenantId, 'batch_ingest', p.id, chunks, now);
    });
    if (dense) this.kick(); else this.d.store.progressJob(jobId, chunks, chunks, 'done', null, nowIso());
    return {
      batch_id: batchId, job_id: jobId, documents_indexed: docs.length, chunks_indexed: chunks, failed, documents: docs,
      visibility_mode: g.visibility, owner_user_id: g.owner, dense: dense ? (chunks ? 'pending' : 'done') : 'disabled',
    };
  }

  /** Re-extract (files) or re-chunk (text) a document and index it again. */
  async reindex(p: Principal, id: string): Promise<{ document_id: string; status: string; chunks_indexed: number; last_error: string | null }> {
    const d = this.managedDocument(p, id);
    try {
      if (d.object_sha256) {
        const data = this.d.objects.get(d.object_sha256);
        if (!data) throw Object.assign(new AppError(422, 'ingestion_failed', 'the original upload is no longer stored'), { documentId: id });
        const format = detectFormat(d.filename, d.mime_type, data);
        if (!format) throw Object.assign(new AppError(422, 'ingestion_failed', 'unsupported file type'), { documentId: id });
        await this.parseAndIndex(id, format, data, null);
      } else {
        await this.indexText(id, d.title, this.d.store.contentOf(id) ?? '');
      }
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'ingestion_failed')) throw err;
    }
    const after = this.d.store.getDocument(this.d.tenantId, id)!;
    return { document_id: id, status: after.status, chunks_indexed: after.chunks_indexed, last_error: after.last_error };
  }

  deleteDocument(p: Principal, id: string): void {
    this.managedDocument(p, id);
    this.d.store.deleteDocument(id);
  }

  /**
   * Change visibility, audiences, grants, owner or title of a document (owner or admin; batch rules).
   * With `visibility_mode` in the body the visibility set is replaced (absent lists become empty);
   * without it, absent lists keep their values. A tenant-wide `shared` result needs
   * `confirm_tenant_wide` unless the document already was tenant-wide. Applies in one transaction.
   */
  updateDocument(p: Principal, id: string, body: DocumentPatchRequest): ReturnType<KnowledgeService['documentDetail']> {
    const d = this.managedDocument(p, id);
    const fields = ['visibility_mode', 'audience_tags', 'user_grants', 'owner_user_id', 'title'] as const;
    if (!fields.some((f) => body[f] !== undefined)) throw invalidRequest(`nothing to change: send one of ${fields.join(', ')}`, 'body');
    const replace = body.visibility_mode !== undefined;
    const wasTenantWide = d.visibility_mode === 'shared' && d.audience_tags.length === 0;
    const g = this.governance(p, {
      visibility_mode: body.visibility_mode ?? d.visibility_mode,
      audience_tags: body.audience_tags ?? (replace ? [] : d.audience_tags),
      user_grants: body.user_grants ?? (replace ? [] : d.user_grants),
      owner_user_id: body.owner_user_id ?? d.owner_user_id,
      confirm_tenant_wide: body.confirm_tenant_wide ?? wasTenantWide,
    });
    let title = d.title;
    let fts: Array<{ chunkId: number; titleTerms: string; bodyTerms: string }> | null = null;
    if (body.title !== undefined) {
      title = body.title.trim().slice(0, 500);
      if (!title) throw invalidRequest('title is empty', 'title');
      if (title !== d.title) {
        const titleTerms = analyze(title).join(' ');
        fts = this.d.store.chunksOf(id).map((c) => ({ chunkId: c.id, titleTerms, bodyTerms: analyze(c.heading ? `${c.heading}\n${c.content}` : c.content).join(' ') }));
      }
    }
    const now = nowIso();
    const dense = this.denseWanted();
    this.d.store.tx(() => {
      this.d.store.ensureAudiences(this.d.tenantId, g.audiences, now);
      this.d.store.updateGovernance(id, { visibility: g.visibility, owner: g.owner, audiences: g.audiences, grants: g.grants, title, fts, dense }, now);
    });
    if (fts && dense) this.kick();
    // Still readable by the caller: a non-admin stays the owner, admins read everything.
    return this.documentDetail(p, id);
  }

  setArchived(p: Principal, id: string, archived: boolean): DocumentView {
    const d = this.managedDocument(p, id);
    if (archived !== (d.archived_at !== null)) this.d.store.setArchived(id, archived ? nowIso() : null, nowIso());
    return documentView(this.d.store.getDocument(this.d.tenantId, id)!);
  }

  // ---- background embedding ------------------------------------------------------------------

  /** Start the background pass that embeds chunks lacking vectors (no-op when one runs). */
  kick(): void {
    if (this.pumping || this.closed || !this.d.embedder.available) return;
    this.pumping = this.pump().finally(() => { this.pumping = null; });
  }

  private async pump(): Promise<void> {
    for (;;) {
      if (this.closed || !this.d.embedder.available) return;
      const rows = this.d.store.unembedded(64);
      if (rows.length === 0) break;
      let vecs: Float32Array[];
      try {
        vecs = await this.d.embedder.embed(rows.map((r) => embeddingText(r.title, r.heading, r.content)), 'bulk');
      } catch (err) {
        this.d.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'background embedding failed');
        return;
      }
      if (this.closed) return;
      this.d.store.putVectors(rows.map((r, i) => ({ chunkId: r.chunk_id, documentId: r.document_id, vec: toBlob(vecs[i]!) })), nowIso());
      if (this.reembed) {
        this.reembed.done += rows.length;
        this.d.store.progressJob(this.reembed.jobId, this.reembed.done, this.reembed.total, 'running', null, nowIso());
      }
    }
    if (this.reembed?.running) {
      this.reembed.running = false;
      this.d.store.progressJob(this.reembed.jobId, this.reembed.total, this.reembed.total, 'done', null, nowIso());
    }
  }

  /** Wait until no chunk lacks a vector (tests, benchmarks), or `timeoutMs`. */
  async waitForVectors(timeoutMs = 60_000): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      if (!this.d.embedder.available) return false;
      if (this.d.store.countUnembedded() === 0) return true;
      this.kick();
      await (this.pumping ?? new Promise((r) => setTimeout(r, 50)));
    }
    return false;
  }

  // ---- search --------------------------------------------------------------------------------

  /** Whether dense retrieval can answer now. */
  denseReady(): boolean { return this.d.embedder.available; }

  /**
   * Hybrid search (spec "Knowledge defaults"): BM25 over FTS5 plus, with a model, sign-bit KNN in
   * sqlite-vec rescored with exact cosine, fused by reciprocal rank. One result per document unless
   * `groupByDocument` is false. Emits `rag_chunks_retrieved` when `turnId` is set.
   */
  async search(p: Principal, query: string, opts: { limit: number; threshold?: number; groupByDocument?: boolean; turnId?: string | null }): Promise<{ results: SearchResult[]; retrieval: { sparse: boolean; dense: boolean; dense_reason: string | null } }> {
    const viewer = this.viewerOf(p);
    const limit = opts.limit;
    const depth = Math.max(50, limit * 5);
    const useDense = this.d.embedder.available;
    const useSparse = this.d.settings.sparseEnabled || !useDense;
    const terms = queryTerms(query);
    const lists: Array<{ name: string; items: Array<Ranked<number>> }> = [];
    const sparseInfo = new Map<number, number>();
    const denseInfo = new Map<number, number>();
    const docOf = new Map<number, string>();
    if (useSparse) {
      const match = ftsOrQuery(terms);
      if (match) {
        const rows = this.d.store.sparse(viewer, match, depth, TITLE_WEIGHT);
        rows.forEach((r) => { sparseInfo.set(r.chunk_id, -r.score); docOf.set(r.chunk_id, r.document_id); });
        lists.push({ name: 'bm25', items: rows.map((r, i) => ({ key: r.chunk_id, rank: i + 1 })) });
      }
    }
    if (useDense && query.trim()) {
      const dense = await this.denseCandidates(viewer, query, depth);
      dense.forEach((r) => { denseInfo.set(r.chunk_id, r.cosine); docOf.set(r.chunk_id, r.document_id); });
      if (dense.length) lists.push({ name: 'dense', items: dense.map((r, i) => ({ key: r.chunk_id, rank: i + 1 })) });
    }
    const fused = fuse(lists);
    const threshold = opts.threshold ?? this.d.settings.searchScoreThreshold;
    const picked: typeof fused = [];
    const seenDocs = new Set<string>();
    for (const f of fused) {
      const score = normalisedScore(f.fused);
      if (score < threshold) break; // fused order = score order
      const doc = docOf.get(f.key)!;
      if (opts.groupByDocument !== false) {
        if (seenDocs.has(doc)) continue;
        seenDocs.add(doc);
      }
      picked.push(f);
      if (picked.length >= limit) break;
    }
    const hits = this.d.store.hits(picked.map((f) => f.key));
    const termSet = new Set(terms);
    const results: SearchResult[] = [];
    for (const f of picked) {
      const h = hits.get(f.key);
      if (!h) continue;
      const parts: string[] = [];
      if (f.ranks.bm25 !== undefined) {
        const matched = [...new Set(analyze(`${h.title}\n${h.heading ?? ''}\n${h.content}`))].filter((t) => termSet.has(t));
        parts.push(`keyword match (BM25) rank ${f.ranks.bm25}, score ${sparseInfo.get(f.key)!.toFixed(2)}; matched terms: ${matched.slice(0, 8).join(', ') || 'none'}`);
      }
      if (f.ranks.dense !== undefined) parts.push(`semantic match rank ${f.ranks.dense}, cosine ${denseInfo.get(f.key)!.toFixed(3)}`);
      parts.push(lists.length > 1 ? `fused by reciprocal rank (k=${RRF_K})` : `single retriever (${lists[0]!.name === 'bm25' ? 'BM25' : 'dense'})`);
      results.push({
        content: h.content, source: h.document_id, document_id: h.document_id, score: Number(normalisedScore(f.fused).toFixed(4)),
        document_title: h.title, chunk_index: h.chunk_index, heading: h.heading, retrieval_rationale: parts.join('; '),
      });
    }
    if (opts.turnId && this.d.events) {
      this.d.events.emit(opts.turnId, p.id, 'rag_chunks_retrieved', {
        query_sha256: createHash('sha256').update(query).digest('hex'), query_chars: query.length,
        retrieval: { sparse: useSparse, dense: useDense, fusion: lists.length > 1 ? 'rrf' : 'none' }, threshold,
        count: results.length,
        chunks: results.map((r) => ({ document_id: r.document_id, chunk_index: r.chunk_index, score: r.score })),
      });
      await this.d.events.deliver(1500);
    }
    return { results, retrieval: { sparse: useSparse, dense: useDense, dense_reason: useDense ? null : this.denseReason() } };
  }

  /** Dense candidates: Hamming KNN over sign bits, oversampled, then exact cosine on float vectors, visibility applied. */
  private async denseCandidates(viewer: Viewer, query: string, depth: number): Promise<Array<{ chunk_id: number; document_id: string; cosine: number }>> {
    let q: Float32Array;
    try { q = (await this.d.embedder.embed([query], 'query'))[0]!; } catch { return []; }
    // sqlite-vec's bit KNN costs grow with k (about 0.1 ms per candidate at 100k rows): 200 candidates keep
    // recall@10 above 0.95 against exact search within the latency budget (bench/knowledge.ts).
    const cand = this.d.store.knnBits(toBlob(q), Math.min(400, Math.max(200, depth * 4)));
    if (cand.length === 0) return [];
    const ids = cand.map((c) => c.chunk_id);
    const visible = viewer.admin ? null : this.d.store.visibleChunkIds(viewer, ids);
    const keep = visible ? ids.filter((id) => visible.has(id)) : ids;
    const vecs = this.d.store.vectorsOf(keep);
    const docs = visible ?? this.d.store.visibleChunkIds(viewer, keep);
    const scored: Array<{ chunk_id: number; document_id: string; cosine: number }> = [];
    for (const id of keep) {
      const v = vecs.get(id);
      const doc = docs.get(id);
      if (!v || !doc) continue;
      const cosine = dot(q, fromBlob(v));
      if (cosine >= DENSE_MIN_SIMILARITY) scored.push({ chunk_id: id, document_id: doc, cosine });
    }
    scored.sort((a, b) => b.cosine - a.cosine);
    return scored.slice(0, depth);
  }

  private denseReason(): string {
    const st = this.d.embedder.status();
    if (st.state === 'loading') return 'the embedding model is still loading; keyword (BM25) search answers meanwhile';
    return st.reason ?? 'dense retrieval is off';
  }

  // ---- documents -----------------------------------------------------------------------------

  listDocuments(p: Principal, opts: { limit: number; cursor?: string; archived?: 'exclude' | 'include' | 'only'; status?: string; q?: string }): { items: DocumentView[]; next_cursor?: string } {
    let cursor: { created_at: string; id: string } | null = null;
    if (opts.cursor) {
      try {
        const c = JSON.parse(Buffer.from(opts.cursor, 'base64url').toString('utf8')) as { c?: unknown; i?: unknown };
        if (typeof c.c !== 'string' || typeof c.i !== 'string') throw new Error('bad');
        cursor = { created_at: c.c, id: c.i };
      } catch { throw invalidRequest('cursor is not a value this service issued', 'querystring.cursor'); }
    }
    const rows = this.d.store.listDocuments(this.viewerOf(p), { limit: opts.limit + 1, cursor, archived: opts.archived ?? 'exclude', ...(opts.status ? { status: opts.status } : {}), ...(opts.q ? { q: opts.q } : {}) });
    const items = rows.slice(0, opts.limit).map(documentView);
    const out: { items: DocumentView[]; next_cursor?: string } = { items };
    if (rows.length > opts.limit) {
      const last = rows[opts.limit - 1]!;
      out.next_cursor = Buffer.from(JSON.stringify({ c: last.created_at, i: last.id })).toString('base64url');
    }
    return out;
  }

  documentDetail(p: Principal, id: string): DocumentView & { chunks: Array<{ chunk_index: number; heading: string | null; chars: number; preview: string }> } {
    const d = this.visibleDocument(p, id);
    const chunks = this.d.store.chunksOf(id).map((c) => ({ chunk_index: c.chunk_index, heading: c.heading, chars: c.content.length, preview: c.content.slice(0, 200) }));
    return { ...documentView(d), chunks };
  }

  documentContent(p: Principal, id: string): { document_id: string; title: string; mime_type: string | null; content: string } {
    const d = this.visibleDocument(p, id);
    return { document_id: id, title: d.title, mime_type: d.mime_type, content: this.d.store.contentOf(id) ?? '' };
  }

  documentOriginal(p: Principal, id: string): { data: Buffer; mime: string; filename: string } | null {
    const d = this.visibleDocument(p, id);
    if (!d.object_sha256) return null;
    const data = this.d.objects.get(d.object_sha256);
    return data ? { data, mime: d.mime_type ?? 'application/octet-stream', filename: d.filename ?? `${id}.bin` } : null;
  }

  // ---- jobs ----------------------------------------------------------------------------------

  job(p: Principal, id: string): JobView {
    const j = this.d.store.getJob(this.d.tenantId, id);
    if (!j || (!isAdmin(p) && j.owner_user_id !== p.id)) throw new AppError(404, 'job_not_found', `no job ${id}`);
    let { done, total, status } = j;
    const extra: Partial<JobView> = {};
    if (j.kind === 'batch_ingest' && status === 'running') {
      // A batch job's id is its batch id.
      const prog = this.d.store.batchProgress(j.id);
      if (prog.documents > 0) {
        done = prog.embedded; total = prog.chunks;
        extra.chunks_total = prog.chunks; extra.chunks_embedded = prog.embedded;
        if (!this.d.embedder.available && this.d.embedder.status().state !== 'loading') { done = total; status = 'done'; }
        if (done >= total) { status = 'done'; this.d.store.progressJob(j.id, total, total, 'done', null, nowIso()); }
      }
    }
    return {
      job_id: j.id, kind: j.kind, status: status as JobView['status'], done, total, progress: total ? Math.min(1, done / total) : 1,
      error: j.error, created_at: j.created_at, updated_at: j.updated_at, ...extra,
    };
  }

  // ---- status --------------------------------------------------------------------------------

  status(): KnowledgeStatus {
    const dense = this.d.embedder.available;
    return {
      sparse_enabled: this.d.settings.sparseEnabled || !dense,
      dense_enabled: dense,
      dense_reason: dense ? null : this.denseReason(),
      embedder: this.d.embedder.status(),
      chunks: this.d.store.countChunks(),
      chunks_pending_vectors: dense ? this.d.store.countUnembedded() : 0,
      reembedding: this.reembed ? { running: this.reembed.running, done: this.reembed.done, total: this.reembed.total } : null,
      score_threshold: this.d.settings.searchScoreThreshold,
    };
  }

  // ---- wiki ----------------------------------------------------------------------------------

  private canReadWiki(v: Viewer, w: WikiRow): boolean {
    if (v.admin || w.owner_user_id === v.userId) return true;
    const inAudience = w.audience_tags.some((t) => v.audiences.includes(t));
    if (w.visibility_mode === 'shared') return w.audience_tags.length === 0 || inAudience;
    if (w.visibility_mode === 'restricted') return inAudience || w.user_grants.includes(v.userId);
    return false;
  }

  private wikiView(w: WikiRow): WikiPage {
    return {
      topic: w.topic, title: w.title, summary: w.summary, tags: w.tags, content: w.content, owner_user_id: w.owner_user_id,
      visibility_mode: w.visibility_mode, audience_tags: w.audience_tags, user_grants: w.user_grants,
      created_by: w.created_by, updated_by: w.updated_by, created_at: w.created_at, updated_at: w.updated_at,
    };
  }

  /** Create or update a page. Pages are private to the writer unless the body says otherwise. */
  writeWiki(p: Principal, body: WikiWriteRequest): { page: WikiPage; created: boolean } {
    const topic = body.topic.trim().toLowerCase();
    if (!/^[a-z0-9][a-z0-9._-]{0,127}$/.test(topic)) throw invalidRequest('topic must be a slug: letters, digits, . _ -', 'topic');
    const existing = this.d.store.getWiki(this.d.tenantId, topic);
    const v = this.viewerOf(p);
    if (existing && !(v.admin || existing.owner_user_id === p.id)) {
      // Same answer whether or not the caller can read the page: nothing about it leaks.
      throw new AppError(409, 'wiki_topic_conflict', `the topic "${topic}" is taken by a page you cannot change; choose another topic`);
    }
    const g = this.governance(p, {
      visibility_mode: body.visibility_mode ?? existing?.visibility_mode ?? 'private',
      audience_tags: body.audience_tags ?? existing?.audience_tags, user_grants: body.user_grants ?? existing?.user_grants,
      confirm_tenant_wide: body.confirm_tenant_wide ?? (existing?.visibility_mode === 'shared' && existing.audience_tags.length === 0),
    });
    const now = nowIso();
    this.d.store.ensureAudiences(this.d.tenantId, g.audiences, now);
    const row: WikiRow = {
      tenant_id: this.d.tenantId, topic, title: body.title.trim().slice(0, 500), summary: (body.summary ?? '').slice(0, 4000),
      tags: cleanTags(body.tags, 'tags'), content: body.content, owner_user_id: existing?.owner_user_id ?? p.id,
      visibility_mode: g.visibility, audience_tags: g.audiences, user_grants: g.grants,
      created_by: existing?.created_by ?? p.id, updated_by: p.id, created_at: existing?.created_at ?? now, updated_at: now,
    };
    this.d.store.upsertWiki(row);
    return { page: this.wikiView(row), created: !existing };
  }

  readWiki(p: Principal, topic: string): WikiPage {
    const w = this.d.store.getWiki(this.d.tenantId, topic.toLowerCase());
    if (!w || !this.canReadWiki(this.viewerOf(p), w)) throw notFound(`no wiki page ${topic}`);
    return this.wikiView(w);
  }

  listWiki(p: Principal): { items: Array<Omit<WikiPage, 'content'>> } {
    const v = this.viewerOf(p);
    return { items: this.d.store.listWiki(this.d.tenantId).filter((w) => this.canReadWiki(v, w)).map((w) => { const { content: _c, ...rest } = this.wikiView(w); return rest; }) };
  }

  deleteWiki(p: Principal, topic: string): void {
    const w = this.d.store.getWiki(this.d.tenantId, topic.toLowerCase());
    const v = this.viewerOf(p);
    if (!w || !this.canReadWiki(v, w)) throw notFound(`no wiki page ${topic}`);
    if (!v.admin && w.owner_user_id !== p.id) throw new AppError(403, 'not_owner', 'only the owner or an admin may delete this page');
    this.d.store.deleteWiki(this.d.tenantId, w.topic);
  }

  // ---- audiences -----------------------------------------------------------------------------

  listAudiences(): { items: Audience[] } { return { items: this.d.store.listAudiences(this.d.tenantId) }; }

  upsertAudience(tag: string, description: string | null): Audience {
    if (!TAG.test(tag)) throw invalidRequest('audience tag: letters, digits, . _ : -; at most 64', 'params.audience_tag');
    this.d.store.upsertAudience(this.d.tenantId, tag, description, nowIso());
    return this.d.store.listAudiences(this.d.tenantId).find((a) => a.tag === tag)!;
  }

  setMembers(tag: string, users: unknown): Audience & { user_ids: string[] } {
    if (!TAG.test(tag)) throw invalidRequest('audience tag: letters, digits, . _ : -; at most 64', 'params.audience_tag');
    const ids = cleanUsers(users, 'user_ids');
    this.d.store.tx(() => {
      this.d.store.ensureAudiences(this.d.tenantId, [tag], nowIso());
      this.d.store.setMembers(this.d.tenantId, tag, ids);
    });
    const a = this.d.store.listAudiences(this.d.tenantId).find((x) => x.tag === tag)!;
    return { ...a, user_ids: this.d.store.membersOf(this.d.tenantId, tag) };
  }

  members(tag: string): { tag: string; user_ids: string[] } {
    if (!this.d.store.getAudience(this.d.tenantId, tag)) throw notFound(`no audience ${tag}`);
    return { tag, user_ids: this.d.store.membersOf(this.d.tenantId, tag) };
  }
}
