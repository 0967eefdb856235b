/**
 * Ingestion (spec "Knowledge": file, text and batch ingest; reindex): documents are stored, their
 * text extracted (files), chunked and indexed for keyword search; vectors follow (at once for small
 * ingests, else by the pump). File and text uploads are private items of the caller; a batch
 * carries the governance fields of `resolveGovernance`.
 *
 * Document bombs (issue 11 item 5): files, and texts above `INLINE_TEXT_CHARS`, are prepared
 * (extracted, chunked, analysed) by the `DocumentPreparer` off the event loop, within the limits of
 * expanded size, pages, characters, chunks, time and memory. The upload's answer waits for its
 * parse at most KNOWLEDGE_INGEST_WAIT_MS (201 as before, or 422 with `last_error` on the
 * document); a longer parse goes on in the background and the answer is 202 `indexing`. A refused
 * document is `failed` with `last_error` naming the limit (422 `document_limit_exceeded`).
 * Parses a stop cut short run again at the next start (`resumeInterrupted`).
 */
import type { Logger } from 'pino';
import type { Awaitable } from '../../../shared/db/async-store.js';
import type { Principal } from '../../../shared/identity/principal.js';
import { ulidFactory } from '../../../shared/identity/ulid.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { TAG_PATTERN, type BatchIngestRequest, type BatchIngestResult, type IngestResult, type KnowledgeSettings, type ReindexResult } from '../contracts.js';
import { invalidInput, isKnowledgeError, knowledgeError, notFoundError } from './errors.js';
import type { Indexer } from './indexing.js';
import { DocumentLimitError, ParseError, PreparerClosedError } from './parse-errors.js';
import { detectFormat, FORMAT_MIME, type DocFormat } from './parsers.js';
import { prepareText, type PreparedChunk } from './prepare.js';
import type { AsyncTransactor, AudienceStore, BlobStore, DocumentPreparer, DocumentStore, JobStore } from './ports.js';
import type { EmbeddingPump } from './pump.js';
import { cleanTags, resolveGovernance, type Visibility } from './visibility.js';

const newId = ulidFactory();

/** Texts up to this many characters are chunked in place; longer ones go to the preparer (worker). */
export const INLINE_TEXT_CHARS = 64 * 1024;

const FORMATS: readonly DocFormat[] = ['pdf', 'docx', 'html', 'markdown', 'text', 'csv'];

function nowIso(): string { return new Date().toISOString(); }

/** An uploaded file. */
export interface UploadedFile { filename: string; contentType: string | null; data: Buffer }

/** An ingest's answer: the result, and `pending` when the parse still runs (answered 202). */
export interface IngestOutcome { result: IngestResult; pending: boolean }

/** Dependencies of ingestion. */
export interface IngestDeps {
  tenantId: string;
  documents: DocumentStore;
  audiences: AudienceStore;
  jobs: JobStore;
  objects: BlobStore;
  indexer: Indexer;
  preparer: DocumentPreparer;
  pump: Pick<EmbeddingPump, 'kick'>;
  visibility: Visibility;
  settings: Pick<KnowledgeSettings, 'maxUploadBytes' | 'maxTextChars' | 'ingestWaitMs'>;
  logger: Logger;
  tx: AsyncTransactor;
}

/** Ingestion use cases. */
export class Ingest {
  constructor(private readonly d: IngestDeps) {}

  /**
   * Ingest an uploaded file as a private item of the caller; the original is kept in the object
   * store for reindex and download. The parse runs off the event loop; the answer waits for it at
   * most KNOWLEDGE_INGEST_WAIT_MS (`pending` after that).
   * @throws DomainError `invalid_request` (empty), `payload_too_large` (413), `unsupported_format` (415),
   *   `ingestion_failed` / `document_limit_exceeded` (422, with `document_id`: the document keeps `last_error`).
   */
  async ingestFile(p: Principal, file: UploadedFile, title: string | null): Promise<IngestOutcome> {
    if (file.data.length === 0) throw invalidInput('the file is empty', 'file');
    if (file.data.length > this.d.settings.maxUploadBytes) throw knowledgeError('payload_too_large', `files are limited to ${this.d.settings.maxUploadBytes} bytes`);
    const format = detectFormat(file.filename, file.contentType, file.data);
    if (!format) throw knowledgeError('unsupported_format', 'unsupported file type; send PDF, DOCX, HTML, Markdown, text or CSV');
    const { sha256 } = await this.d.objects.put(file.data);
    const id = newId();
    const now = nowIso();
    const baseTitle = title?.trim() || file.filename.replace(/\.[A-Za-z0-9]+$/, '') || 'Untitled';
    await this.d.documents.insert({
      id, tenant_id: this.d.tenantId, title: baseTitle.slice(0, 500), source_type: 'file', filename: file.filename.slice(0, 255), mime_type: FORMAT_MIME[format],
      bytes: file.data.length, object_sha256: sha256, owner_user_id: p.id, creator_user_id: p.id, visibility_mode: 'private',
      tags: [], metadata: { format }, audience_tags: [], user_grants: [], batch_id: null, now,
    });
    return this.answer(id, this.parseFile(id, format, () => this.d.objects.get(sha256), title?.trim() ? null : baseTitle));
  }

  /**
   * Ingest text as a private item of the caller. Texts above `INLINE_TEXT_CHARS` are chunked off
   * the event loop (answered as files are).
   * @throws DomainError `invalid_request` when the content is blank; `document_limit_exceeded` (422).
   */
  async ingestText(p: Principal, title: string, content: string): Promise<IngestOutcome> {
    if (!content.trim()) throw invalidInput('content is empty', 'content');
    const id = newId();
    await this.d.documents.insert({
      id, tenant_id: this.d.tenantId, title: (title.trim() || 'Untitled').slice(0, 500), source_type: 'text', filename: null, mime_type: 'text/plain',
      bytes: Buffer.byteLength(content), object_sha256: null, owner_user_id: p.id, creator_user_id: p.id, visibility_mode: 'private',
      tags: [], metadata: {}, audience_tags: [], user_grants: [], batch_id: null, now: nowIso(),
    });
    const work = this.indexText(id, content);
    return content.length <= INLINE_TEXT_CHARS ? { result: await work, pending: false } : this.answer(id, work);
  }

  /**
   * Batch ingest (spec): every record becomes a document with the batch's governance fields, all
   * in one transaction; keyword search covers them on return, vectors follow (job `job_id`).
   * Records with an empty title or content, or over the character or chunk limit of a document
   * (issue 11 item 5), are reported in `failed`.
   * @throws DomainError of `resolveGovernance`; `invalid_request` for malformed `tags`.
   */
  async ingestBatch(p: Principal, body: BatchIngestRequest): Promise<BatchIngestResult> {
    const g = resolveGovernance(p, body);
    const tags = cleanTags(body.tags, 'tags');
    const now = nowIso();
    const batchId = newId();
    const jobId = batchId;
    const dense = this.d.indexer.denseWanted();
    const docs: BatchIngestResult['documents'] = [];
    const failed: BatchIngestResult['failed'] = [];
    let chunks = 0;
    await this.d.tx(async () => {
      await this.d.audiences.ensure(this.d.tenantId, g.audiences, now);
      for (const [index, r] of body.records.entries()) {
        const title = typeof r.title === 'string' ? r.title.trim() : '';
        const content = typeof r.content === 'string' ? r.content : '';
        if (!title || !content.trim()) { failed.push({ index, error: 'a record needs a non-empty title and content' }); continue; }
        const meta = r.metadata && typeof r.metadata === 'object' && !Array.isArray(r.metadata) ? r.metadata : {};
        const metaTags = (meta as { tags?: unknown }).tags;
        const recTags = Array.isArray(metaTags) ? metaTags.filter((t): t is string => typeof t === 'string' && TAG_PATTERN.test(t)) : [];
        let prepared: PreparedChunk[];
        try {
          prepared = prepareText(content, this.d.indexer.prepareOptions());
        } catch (err) {
          if (!(err instanceof DocumentLimitError)) throw err;
          failed.push({ index, error: err.message });
          continue;
        }
        const id = newId();
        await this.d.documents.insert({
          id, tenant_id: this.d.tenantId, title: title.slice(0, 500), source_type: 'batch', filename: null, mime_type: 'text/plain',
          bytes: Buffer.byteLength(content), object_sha256: null, owner_user_id: g.owner, creator_user_id: p.id, visibility_mode: g.visibility,
          tags: [...new Set([...tags, ...recTags])], metadata: meta, audience_tags: g.audiences, user_grants: g.grants, batch_id: batchId, now,
        });
        const { chunkIds } = await this.d.indexer.indexPrepared({ id, title: title.slice(0, 500) }, prepared);
        await this.d.documents.setIndexed(id, { status: dense && chunkIds.length ? 'indexing' : 'indexed', chunks: chunkIds.length, embedded: 0, error: null, content }, now);
        chunks += chunkIds.length;
        docs.push({ document_id: id, title: title.slice(0, 500), chunks_indexed: chunkIds.length });
      }
      await this.d.jobs.create(jobId, this.d.tenantId, 'batch_ingest', p.id, chunks, now);
    });
    if (dense) this.d.pump.kick(); else await this.d.jobs.progress(jobId, chunks, chunks, 'done', null, nowIso());
    return {
      batch_id: batchId, job_id: jobId, documents_indexed: docs.length, chunks_indexed: chunks, failed, documents: docs,
      visibility_mode: g.visibility, owner_user_id: g.owner, dense: dense ? (chunks ? 'pending' : 'done') : 'disabled',
    };
  }

  /**
   * Re-extract (files) or re-chunk (text) a document and index it again (owner or admin); the
   * answer waits for the parse (off the event loop, within the parse time limit). A file that no
   * longer parses or passes a limit leaves the document `failed` with `last_error` (answered, not thrown).
   * @throws DomainError `not_found`, `not_owner`.
   */
  async reindex(p: Principal, id: string): Promise<ReindexResult> {
    const d = await this.d.visibility.managedDocument(p, id);
    try {
      if (d.object_sha256) {
        const data = await this.d.objects.get(d.object_sha256);
        if (!data) throw knowledgeError('ingestion_failed', 'the original upload is no longer stored', { extra: { document_id: id } });
        const format = detectFormat(d.filename, d.mime_type, data);
        if (!format) throw knowledgeError('ingestion_failed', 'unsupported file type', { extra: { document_id: id } });
        await this.parseFile(id, format, () => data, null);
      } else {
        await this.indexText(id, (await this.d.documents.contentOf(id)) ?? '');
      }
    } catch (err) {
      if (!isKnowledgeError(err, 'ingestion_failed') && !isKnowledgeError(err, 'document_limit_exceeded')) throw err;
    }
    const after = (await this.d.documents.get(this.d.tenantId, id))!;
    return { document_id: id, status: after.status, chunks_indexed: after.chunks_indexed, last_error: after.last_error };
  }

  /**
   * Parses a stop cut short (documents `indexing` without chunks): files are parsed again in the
   * background; texts, kept only once indexed, fail with a note to send them again.
   * @returns how many documents were resumed or failed.
   */
  async resumeInterrupted(): Promise<number> {
    const docs = await this.d.documents.awaitingParse(this.d.tenantId);
    for (const d of docs) {
      const sha = d.object_sha256;
      const format = d.metadata.format as DocFormat;
      if (!sha || !FORMATS.includes(format)) {
        await this.d.documents.setFailed(d.id, 'the service stopped before this document was indexed; send it again', nowIso());
        continue;
      }
      this.parseFile(d.id, format, () => this.d.objects.get(sha), null).catch(() => {});
    }
    if (docs.length) this.d.logger.info({ documents: docs.length }, 'parses cut short by a stop resumed');
    return docs.length;
  }

  /** Wait for `work` at most KNOWLEDGE_INGEST_WAIT_MS; after that answer with the document as it is (`pending`). */
  private async answer(id: string, work: Promise<IngestResult>): Promise<IngestOutcome> {
    work.catch(() => {}); // settles in the background when nobody waits any more
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), this.d.settings.ingestWaitMs); });
    try {
      const done = await Promise.race([work, late]);
      if (done) return { result: done, pending: false };
    } finally {
      clearTimeout(timer);
    }
    return { result: await this.resultOf(id), pending: true };
  }

  /** Prepare a stored file off the event loop, then index it; a refusal marks the document failed. */
  private parseFile(id: string, format: DocFormat, load: () => Awaitable<Buffer | null>, fallbackTitle: string | null): Promise<IngestResult> {
    return this.d.preparer.prepare({ kind: 'file', format, load }).then(
      (doc) => this.store(id, doc.text, doc.chunks, fallbackTitle && doc.title ? { from: fallbackTitle, to: doc.title } : null),
      async (err: unknown) => { throw await this.failed(id, err); },
    );
  }

  /** Chunk and index a text: in place when short, else off the event loop. */
  private async indexText(id: string, text: string): Promise<IngestResult> {
    let chunks: PreparedChunk[];
    try {
      if (text.length > this.d.settings.maxTextChars || text.length <= INLINE_TEXT_CHARS) chunks = prepareText(text, this.d.indexer.prepareOptions());
      else chunks = (await this.d.preparer.prepare({ kind: 'text', text })).chunks;
    } catch (err) {
      throw await this.failed(id, err);
    }
    return this.store(id, text, chunks, null);
  }

  /**
   * Index prepared chunks, then embed small ingests at once. `retitle`: the title the file carries
   * replaces the one made from its name, unless the document was renamed while it was parsed.
   */
  private async store(id: string, text: string, chunks: PreparedChunk[], retitle: { from: string; to: string } | null): Promise<IngestResult> {
    const dense = this.d.indexer.denseWanted();
    const written = await this.d.tx(async () => {
      const current = await this.d.documents.get(this.d.tenantId, id);
      if (!current) return null; // deleted while it was being parsed
      const title = retitle && current.title === retitle.from.slice(0, 500) ? retitle.to.slice(0, 500) : current.title;
      if (title !== current.title) await this.d.documents.setTitle(id, title);
      const r = await this.d.indexer.indexPrepared({ id, title }, chunks);
      await this.d.documents.setIndexed(id, { status: dense && r.chunkIds.length ? 'indexing' : 'indexed', chunks: r.chunkIds.length, embedded: 0, error: null, content: text }, nowIso());
      return r;
    });
    if (!written) throw notFoundError(`document ${id} was deleted`);
    await this.d.indexer.embedNow(id, written.chunkIds, written.texts);
    return this.resultOf(id);
  }

  /**
   * The error to answer for a failed preparation, after marking the document failed with its
   * message. A stop (`PreparerClosedError`) leaves the document waiting for the next start.
   */
  private async failed(id: string, err: unknown): Promise<Error> {
    if (err instanceof PreparerClosedError || err instanceof DomainError) return err;
    const msg = err instanceof ParseError ? err.message : 'the file could not be parsed';
    if (!(err instanceof ParseError)) this.d.logger.warn({ err }, 'parser failed');
    await this.d.documents.setFailed(id, msg, nowIso());
    if (err instanceof DocumentLimitError) return knowledgeError('document_limit_exceeded', msg, { extra: { document_id: id, limit: err.limit } });
    return knowledgeError('ingestion_failed', msg, { extra: { document_id: id } });
  }

  private async resultOf(id: string): Promise<IngestResult> {
    const d = await this.d.documents.get(this.d.tenantId, id);
    if (!d) throw notFoundError(`document ${id} was deleted`);
    return { document_id: id, knowledge_item_id: id, title: d.title, chunks_indexed: d.chunks_indexed, status: d.status, visibility_mode: d.visibility_mode };
  }
}
