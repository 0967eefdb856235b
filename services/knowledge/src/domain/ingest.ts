/**
 * Ingestion (spec "Knowledge": file, text and batch ingest; reindex): documents are stored, their
 * text extracted (files), chunked and indexed for keyword search at once; vectors follow (at once
 * for small ingests, else by the pump). File and text uploads are private items of the caller; a
 * batch carries the governance fields of `resolveGovernance`.
 */
import type { Logger } from 'pino';
import type { Principal } from '../../../shared/identity/principal.js';
import { ulidFactory } from '../../../shared/identity/ulid.js';
import { TAG_PATTERN, type BatchIngestRequest, type BatchIngestResult, type IngestResult, type KnowledgeSettings, type ReindexResult } from '../contracts.js';
import { invalidInput, isKnowledgeError, knowledgeError } from './errors.js';
import type { Indexer } from './indexing.js';
import { detectFormat, extractText, FORMAT_MIME, ParseError, type DocFormat } from './parsers.js';
import type { AudienceStore, BlobStore, DocumentStore, JobStore, Transactor } from './ports.js';
import type { EmbeddingPump } from './pump.js';
import { cleanTags, resolveGovernance, type Visibility } from './visibility.js';

const newId = ulidFactory();

function nowIso(): string { return new Date().toISOString(); }

/** An uploaded file. */
export interface UploadedFile { filename: string; contentType: string | null; data: Buffer }

/** Dependencies of ingestion. */
export interface IngestDeps {
  tenantId: string;
  documents: DocumentStore;
  audiences: AudienceStore;
  jobs: JobStore;
  objects: BlobStore;
  indexer: Indexer;
  pump: Pick<EmbeddingPump, 'kick'>;
  visibility: Visibility;
  settings: Pick<KnowledgeSettings, 'maxUploadBytes'>;
  logger: Logger;
  tx: Transactor;
}

/** Ingestion use cases. */
export class Ingest {
  constructor(private readonly d: IngestDeps) {}

  /**
   * Ingest an uploaded file as a private item of the caller; the original is kept in the object
   * store for reindex and download.
   * @throws DomainError `invalid_request` (empty), `payload_too_large` (413), `unsupported_format` (415),
   *   `ingestion_failed` (422, with `document_id`: the document keeps `last_error`).
   */
  async ingestFile(p: Principal, file: UploadedFile, title: string | null): Promise<IngestResult> {
    if (file.data.length === 0) throw invalidInput('the file is empty', 'file');
    if (file.data.length > this.d.settings.maxUploadBytes) throw knowledgeError('payload_too_large', `files are limited to ${this.d.settings.maxUploadBytes} bytes`);
    const format = detectFormat(file.filename, file.contentType, file.data);
    if (!format) throw knowledgeError('unsupported_format', 'unsupported file type; send PDF, DOCX, HTML, Markdown, text or CSV');
    const { sha256 } = this.d.objects.put(file.data);
    const id = newId();
    const now = nowIso();
    const baseTitle = title?.trim() || file.filename.replace(/\.[A-Za-z0-9]+$/, '') || 'Untitled';
    this.d.documents.insert({
      id, tenant_id: this.d.tenantId, title: baseTitle.slice(0, 500), source_type: 'file', filename: file.filename.slice(0, 255), mime_type: FORMAT_MIME[format],
      bytes: file.data.length, object_sha256: sha256, owner_user_id: p.id, creator_user_id: p.id, visibility_mode: 'private',
      tags: [], metadata: { format }, audience_tags: [], user_grants: [], batch_id: null, now,
    });
    return this.parseAndIndex(id, format, file.data, title?.trim() ? null : baseTitle);
  }

  /**
   * Ingest text as a private item of the caller.
   * @throws DomainError `invalid_request` when the content is blank.
   */
  async ingestText(p: Principal, title: string, content: string): Promise<IngestResult> {
    if (!content.trim()) throw invalidInput('content is empty', 'content');
    const id = newId();
    this.d.documents.insert({
      id, tenant_id: this.d.tenantId, title: (title.trim() || 'Untitled').slice(0, 500), source_type: 'text', filename: null, mime_type: 'text/plain',
      bytes: Buffer.byteLength(content), object_sha256: null, owner_user_id: p.id, creator_user_id: p.id, visibility_mode: 'private',
      tags: [], metadata: {}, audience_tags: [], user_grants: [], batch_id: null, now: nowIso(),
    });
    return this.indexText(id, title.trim() || 'Untitled', content);
  }

  /**
   * Batch ingest (spec): every record becomes a document with the batch's governance fields, all
   * in one transaction; keyword search covers them on return, vectors follow (job `job_id`).
   * Records with an empty title or content are reported in `failed`.
   * @throws DomainError of `resolveGovernance`; `invalid_request` for malformed `tags`.
   */
  ingestBatch(p: Principal, body: BatchIngestRequest): BatchIngestResult {
    const g = resolveGovernance(p, body);
    const tags = cleanTags(body.tags, 'tags');
    const now = nowIso();
    const batchId = newId();
    const jobId = batchId;
    const dense = this.d.indexer.denseWanted();
    const docs: BatchIngestResult['documents'] = [];
    const failed: BatchIngestResult['failed'] = [];
    let chunks = 0;
    this.d.tx(() => {
      this.d.audiences.ensure(this.d.tenantId, g.audiences, now);
      body.records.forEach((r, index) => {
        const title = typeof r.title === 'string' ? r.title.trim() : '';
        const content = typeof r.content === 'string' ? r.content : '';
        if (!title || !content.trim()) { failed.push({ index, error: 'a record needs a non-empty title and content' }); return; }
        const meta = r.metadata && typeof r.metadata === 'object' && !Array.isArray(r.metadata) ? r.metadata : {};
        const metaTags = (meta as { tags?: unknown }).tags;
        const recTags = Array.isArray(metaTags) ? metaTags.filter((t): t is string => typeof t === 'string' && TAG_PATTERN.test(t)) : [];
        const id = newId();
        this.d.documents.insert({
          id, tenant_id: this.d.tenantId, title: title.slice(0, 500), source_type: 'batch', filename: null, mime_type: 'text/plain',
          bytes: Buffer.byteLength(content), object_sha256: null, owner_user_id: g.owner, creator_user_id: p.id, visibility_mode: g.visibility,
          tags: [...new Set([...tags, ...recTags])], metadata: meta, audience_tags: g.audiences, user_grants: g.grants, batch_id: batchId, now,
        });
        const { chunkIds } = this.d.indexer.indexChunks({ id, title: title.slice(0, 500) }, content);
        this.d.documents.setIndexed(id, { status: dense && chunkIds.length ? 'indexing' : 'indexed', chunks: chunkIds.length, embedded: 0, error: null, content }, now);
        chunks += chunkIds.length;
        docs.push({ document_id: id, title: title.slice(0, 500), chunks_indexed: chunkIds.length });
      });
      this.d.jobs.create(jobId, this.d.tenantId, 'batch_ingest', p.id, chunks, now);
    });
    if (dense) this.d.pump.kick(); else this.d.jobs.progress(jobId, chunks, chunks, 'done', null, nowIso());
    return {
      batch_id: batchId, job_id: jobId, documents_indexed: docs.length, chunks_indexed: chunks, failed, documents: docs,
      visibility_mode: g.visibility, owner_user_id: g.owner, dense: dense ? (chunks ? 'pending' : 'done') : 'disabled',
    };
  }

  /**
   * Re-extract (files) or re-chunk (text) a document and index it again (owner or admin). A file
   * that no longer parses leaves the document `failed` with `last_error` (answered, not thrown).
   * @throws DomainError `not_found`, `not_owner`.
   */
  async reindex(p: Principal, id: string): Promise<ReindexResult> {
    const d = this.d.visibility.managedDocument(p, id);
    try {
      if (d.object_sha256) {
        const data = this.d.objects.get(d.object_sha256);
        if (!data) throw knowledgeError('ingestion_failed', 'the original upload is no longer stored', { extra: { document_id: id } });
        const format = detectFormat(d.filename, d.mime_type, data);
        if (!format) throw knowledgeError('ingestion_failed', 'unsupported file type', { extra: { document_id: id } });
        await this.parseAndIndex(id, format, data, null);
      } else {
        await this.indexText(id, d.title, this.d.documents.contentOf(id) ?? '');
      }
    } catch (err) {
      if (!isKnowledgeError(err, 'ingestion_failed')) throw err;
    }
    const after = this.d.documents.get(this.d.tenantId, id)!;
    return { document_id: id, status: after.status, chunks_indexed: after.chunks_indexed, last_error: after.last_error };
  }

  /** Extract the text of a stored file and index it; a parse failure marks the document failed. */
  private async parseAndIndex(id: string, format: DocFormat, data: Buffer, fallbackTitle: string | null): Promise<IngestResult> {
    let text: string;
    let title: string;
    try {
      const out = await extractText(format, data);
      text = out.text;
      const current = this.d.documents.get(this.d.tenantId, id)!;
      title = fallbackTitle && out.title ? out.title.slice(0, 500) : current.title;
      if (title !== current.title) this.d.documents.setTitle(id, title);
    } catch (err) {
      const msg = err instanceof ParseError ? err.message : 'the file could not be parsed';
      if (!(err instanceof ParseError)) this.d.logger.warn({ err }, 'parser failed');
      this.d.documents.setFailed(id, msg, nowIso());
      throw knowledgeError('ingestion_failed', msg, { extra: { document_id: id } });
    }
    return this.indexText(id, title, text);
  }

  /** Chunk and index `text` for keyword search, then embed small ingests at once. */
  private async indexText(id: string, title: string, text: string): Promise<IngestResult> {
    const dense = this.d.indexer.denseWanted();
    const { chunkIds, texts } = this.d.tx(() => {
      const r = this.d.indexer.indexChunks({ id, title }, text);
      this.d.documents.setIndexed(id, { status: dense && r.chunkIds.length ? 'indexing' : 'indexed', chunks: r.chunkIds.length, embedded: 0, error: null, content: text }, nowIso());
      return r;
    });
    await this.d.indexer.embedNow(id, chunkIds, texts);
    const d = this.d.documents.get(this.d.tenantId, id)!;
    return { document_id: id, knowledge_item_id: id, title: d.title, chunks_indexed: d.chunks_indexed, status: d.status, visibility_mode: d.visibility_mode };
  }
}
