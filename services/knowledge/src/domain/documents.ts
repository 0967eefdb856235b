/**
 * Documents (spec "Knowledge": list, detail, content, delete; plus change of visibility, owner or
 * title, archive and restore). Reads go through the visibility rule; changes need the owner or an
 * admin.
 */
import type { Principal } from '../../../shared/identity/principal.js';
import { pageFromRows, requireCursor, type Page } from '../../../shared/http/pagination.js';
import { analyze } from '../../../embedder/src/index.js';
import type { DocumentContent, DocumentDetail, DocumentPatchRequest, DocumentView } from '../contracts.js';
import { invalidInput } from './errors.js';
import type { Indexer } from './indexing.js';
import type {
  AsyncTransactor, AudienceStore, BlobStore, ChunkStore, ChunkTerms, DocumentPosition, DocumentRow, DocumentStore, VectorIndex,
} from './ports.js';
import type { EmbeddingPump } from './pump.js';
import { resolveGovernance, type Visibility } from './visibility.js';

function nowIso(): string { return new Date().toISOString(); }

/** The cursor position of the list: `{c: created_at, i: id}` of the last item of the page. */
interface ListPosition { c: string; i: string }

function isListPosition(v: unknown): v is ListPosition {
  return typeof v === 'object' && v !== null && typeof (v as ListPosition).c === 'string' && typeof (v as ListPosition).i === 'string';
}

/** Document row -> view (the governance fields of the spec; `knowledge_item_id` = `document_id`). */
export function documentView(d: DocumentRow): DocumentView {
  return {
    document_id: d.id, knowledge_item_id: d.id, title: d.title, source_type: d.source_type, filename: d.filename, mime_type: d.mime_type,
    bytes: d.bytes, status: d.status, chunks_indexed: d.chunks_indexed, chunks_embedded: d.chunks_embedded,
    owner_user_id: d.owner_user_id, creator_user_id: d.creator_user_id, visibility_mode: d.visibility_mode,
    audience_tags: d.audience_tags, user_grants: d.user_grants, tags: d.tags, metadata: d.metadata, archived_at: d.archived_at,
    last_error: d.last_error, batch_id: d.batch_id, created_at: d.created_at, updated_at: d.updated_at,
  };
}

/** Filters and page of `Documents.list`. */
export interface ListOptions {
  limit: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
  archived?: 'exclude' | 'include' | 'only';
  status?: string;
  q?: string;
}

/** The stored original of a file document. */
export interface OriginalFile { data: Buffer; mime: string; filename: string }

/** Dependencies of the document use cases. */
export interface DocumentsDeps {
  tenantId: string;
  visibility: Visibility;
  documents: DocumentStore;
  chunks: ChunkStore;
  vectors: VectorIndex;
  audiences: AudienceStore;
  objects: BlobStore;
  indexer: Pick<Indexer, 'denseWanted'>;
  pump: Pick<EmbeddingPump, 'kick'>;
  tx: AsyncTransactor;
}

/** Document use cases. */
export class Documents {
  constructor(private readonly d: DocumentsDeps) {}

  /**
   * Documents the caller may read, newest first, a page at a time.
   * @throws DomainError `invalid_request` (field `querystring.cursor`) for a cursor this service did not issue.
   */
  async list(p: Principal, opts: ListOptions): Promise<Page<DocumentView>> {
    let cursor: DocumentPosition | null = null;
    if (opts.cursor) {
      const c = requireCursor(opts.cursor, isListPosition, 'querystring.cursor');
      cursor = { created_at: c.c, id: c.i };
    }
    const rows = await this.d.documents.list(await this.d.visibility.viewerOf(p), {
      limit: opts.limit + 1, cursor, archived: opts.archived ?? 'exclude', ...(opts.status ? { status: opts.status } : {}), ...(opts.q ? { q: opts.q } : {}),
    });
    const page = pageFromRows(rows, opts.limit, (r): ListPosition => ({ c: r.created_at, i: r.id }));
    return { ...page, items: page.items.map(documentView) };
  }

  /** A visible document with chunk previews (first 200 characters). @throws DomainError `not_found`. */
  async detail(p: Principal, id: string): Promise<DocumentDetail> {
    const d = await this.d.visibility.visibleDocument(p, id);
    const chunks = (await this.d.chunks.list(id)).map((c) => ({ chunk_index: c.chunk_index, heading: c.heading, chars: c.content.length, preview: c.content.slice(0, 200) }));
    return { ...documentView(d), chunks };
  }

  /** The extracted text of a visible document. @throws DomainError `not_found`. */
  async content(p: Principal, id: string): Promise<DocumentContent> {
    const d = await this.d.visibility.visibleDocument(p, id);
    return { document_id: id, title: d.title, mime_type: d.mime_type, content: (await this.d.documents.contentOf(id)) ?? '' };
  }

  /**
   * The stored upload of a visible document, or null when it has none (text, batch) or it is gone.
   * @throws DomainError `not_found` when not visible.
   */
  async original(p: Principal, id: string): Promise<OriginalFile | null> {
    const d = await this.d.visibility.visibleDocument(p, id);
    if (!d.object_sha256) return null;
    const data = await this.d.objects.get(d.object_sha256);
    return data ? { data, mime: d.mime_type ?? 'application/octet-stream', filename: d.filename ?? `${id}.bin` } : null;
  }

  /**
   * Change visibility, audiences, grants, owner or title of a document (owner or admin; batch rules).
   * With `visibility_mode` in the body the visibility set is replaced (absent lists become empty);
   * without it, absent lists keep their values. A tenant-wide `shared` result needs
   * `confirm_tenant_wide` unless the document already was tenant-wide. Applies in one transaction;
   * a new title is searchable at once and re-embedded in the background.
   * @returns the document detail. @throws DomainError `not_found`, `not_owner`, `invalid_request`, and those of `resolveGovernance`.
   */
  async update(p: Principal, id: string, body: DocumentPatchRequest): Promise<DocumentDetail> {
    const d = await this.d.visibility.managedDocument(p, id);
    const fields = ['visibility_mode', 'audience_tags', 'user_grants', 'owner_user_id', 'title'] as const;
    if (!fields.some((f) => body[f] !== undefined)) throw invalidInput(`nothing to change: send one of ${fields.join(', ')}`, 'body');
    const replace = body.visibility_mode !== undefined;
    const wasTenantWide = d.visibility_mode === 'shared' && d.audience_tags.length === 0;
    const g = resolveGovernance(p, {
      visibility_mode: body.visibility_mode ?? d.visibility_mode,
      audience_tags: body.audience_tags ?? (replace ? [] : d.audience_tags),
      user_grants: body.user_grants ?? (replace ? [] : d.user_grants),
      owner_user_id: body.owner_user_id ?? d.owner_user_id,
      confirm_tenant_wide: body.confirm_tenant_wide ?? wasTenantWide,
    });
    let title = d.title;
    let terms: ChunkTerms[] | null = null;
    if (body.title !== undefined) {
      title = body.title.trim().slice(0, 500);
      if (!title) throw invalidInput('title is empty', 'title');
      if (title !== d.title) {
        const titleTerms = analyze(title).join(' ');
        terms = (await this.d.chunks.list(id)).map((c) => ({ chunkId: c.id, titleTerms, bodyTerms: analyze(c.heading ? `${c.heading}\n${c.content}` : c.content).join(' ') }));
      }
    }
    const now = nowIso();
    const dense = this.d.indexer.denseWanted();
    // Visibility lives on the document and its audience and grant rows only (chunks carry none), so
    // the change applies to search, list, detail and content at once. A new title rewrites the
    // chunks' keyword rows and marks them for re-embedding; old vectors serve until replaced.
    await this.d.tx(async () => {
      await this.d.audiences.ensure(this.d.tenantId, g.audiences, now);
      await this.d.documents.setGovernance(id, { visibility: g.visibility, owner: g.owner, audiences: g.audiences, grants: g.grants, title }, now);
      if (terms) {
        await this.d.chunks.retitle(terms);
        await this.d.vectors.markForReembedding(id, dense);
      }
    });
    if (terms && dense) this.d.pump.kick();
    // Still readable by the caller: a non-admin stays the owner, admins read everything.
    return this.detail(p, id);
  }

  /** Delete a document, its chunks and vectors (owner or admin). @throws DomainError `not_found`, `not_owner`. */
  async delete(p: Principal, id: string): Promise<void> {
    await this.d.visibility.managedDocument(p, id);
    await this.d.tx(async () => {
      await this.d.vectors.remove(await this.d.chunks.idsOf(id));
      await this.d.chunks.removeAll(id);
      await this.d.documents.delete(id);
    });
  }

  /** Archive (hidden from search and the default list) or restore (owner or admin). @throws DomainError `not_found`, `not_owner`. */
  async setArchived(p: Principal, id: string, archived: boolean): Promise<DocumentView> {
    const d = await this.d.visibility.managedDocument(p, id);
    if (archived !== (d.archived_at !== null)) await this.d.documents.setArchived(id, archived ? nowIso() : null, nowIso());
    return documentView((await this.d.documents.get(this.d.tenantId, id))!);
  }
}
