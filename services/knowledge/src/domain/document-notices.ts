/**
 * Notifications of finished uploads (issue 13 item 1: "a document indexed or failed"): when a file
 * or text the user uploaded reaches `indexed` or `failed`, its creator gets a `document_indexed` or
 * `document_failed` notification through the agent runtime.
 *
 * The hook sits in front of the two stores whose writes end an indexing, so the ingest, reindex,
 * resume and pump code stays as it is:
 * - `DocumentStore.setIndexed` (`indexed` at once without dense vectors, or `indexing` while vectors
 *   are due: the document is then awaited) and `setFailed`;
 * - `VectorIndex.put`, after which an awaited document whose last vectors arrived is `indexed`
 *   (the ingest's own embedding, or the background pump).
 * A document's state is read after the current work (the writes are inside transactions) and sent
 * with the idempotency key `document:<id>:<state>:<updated_at>`, so a state seen twice is one
 * notification and a later reindex is a new one. Batch documents (`source_type` `batch`: imports of
 * many records by an admin or a service) send none. Awaited ids live in memory: a document whose
 * vectors are finished after a restart sends no `document_indexed`.
 */
import type { NotificationCreate } from '../../../agent-runtime/src/contracts.js';
import type { Awaitable } from '../../../shared/db/async-store.js';
import type { ChunkVector, DocumentRow, DocumentStore, VectorIndex } from './ports.js';

/** Sends a notification in the background; never throws. */
export type NoticeSink = (n: NotificationCreate) => void;

/** What the notices need. */
export interface DocumentNoticesDeps {
  tenantId: string;
  sink: NoticeSink;
  /** Run `fn` after the current work and its transaction (default `setImmediate`; app.ts: `AfterCommit.defer`). */
  defer?: (fn: () => void) => void;
}

/** The notification of a document that reached `indexed` or `failed`, or null for any other state or a batch document. */
export function documentNotice(d: DocumentRow): NotificationCreate | null {
  if (d.source_type === 'batch' || (d.status !== 'indexed' && d.status !== 'failed')) return null;
  const indexed = d.status === 'indexed';
  const title = `${indexed ? 'Document indexed' : 'Document failed'}: ${d.title}`.slice(0, 200);
  return {
    tenant_id: d.tenant_id, user_id: d.creator_user_id, kind: indexed ? 'document_indexed' : 'document_failed', title,
    body: indexed ? `${d.chunks_indexed} chunk${d.chunks_indexed === 1 ? '' : 's'} searchable.` : (d.last_error ?? 'The document could not be indexed.').slice(0, 4000),
    payload: { document_id: d.id, link: `/knowledge/${encodeURIComponent(d.id)}`, ...(indexed ? {} : { error: (d.last_error ?? '').slice(0, 1000) }) },
    idempotency_key: `document:${d.id}:${d.status}:${d.updated_at}`,
  };
}

/** Run `fn` once `r` is settled successfully: at once for a value (SQLite), after the promise (PostgreSQL). */
function then<T>(r: Awaitable<T>, fn: () => void): Awaitable<T> {
  if (r instanceof Promise) return r.then((v) => { fn(); return v; });
  fn();
  return r;
}

/** Overrides some methods of `target`; the rest pass through, bound to it. */
function overriding<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get(t, prop) {
      if (Object.prototype.hasOwnProperty.call(overrides, prop)) return (overrides as Record<PropertyKey, unknown>)[prop];
      const v = Reflect.get(t, prop, t) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}

/** Watches the document and vector stores for finished uploads. */
export class DocumentNotices {
  /** Documents whose vectors are due (`indexing` after their chunks were written). */
  private readonly awaiting = new Set<string>();
  private documents: DocumentStore | null = null;
  private readonly defer: (fn: () => void) => void;

  constructor(private readonly d: DocumentNoticesDeps) {
    this.defer = d.defer ?? ((fn) => { setImmediate(fn); });
  }

  /** `store` with the hook on `setIndexed`, `setFailed` and `delete`. */
  watchDocuments(store: DocumentStore): DocumentStore {
    this.documents = store;
    return overriding(store, {
      setIndexed: (id, state, now) => then(store.setIndexed(id, state, now), () => {
        if (state.status === 'indexing') this.awaiting.add(id); else this.settle(id);
      }),
      setFailed: (id, error, now) => then(store.setFailed(id, error, now), () => { this.settle(id); }),
      delete: (id) => then(store.delete(id), () => { this.awaiting.delete(id); }),
    });
  }

  /** `index` with the hook on `put` (an awaited document may be complete after it). */
  watchVectors(index: VectorIndex): VectorIndex {
    return overriding(index, {
      put: (items: ChunkVector[], now: string) => then(index.put(items, now), () => {
        const done = new Set<string>();
        for (const it of items) if (this.awaiting.has(it.documentId)) done.add(it.documentId);
        for (const id of done) this.settle(id, true);
      }),
    });
  }

  /** After the current work, send the notice of `id` if it finished (`onlyIndexed`: not while it is still `indexing`). */
  private settle(id: string, onlyIndexed = false): void {
    this.defer(() => {
      const got = this.documents?.get(this.d.tenantId, id) ?? null;
      if (got instanceof Promise) got.then((doc) => { this.notify(id, doc, onlyIndexed); }, () => { /* the store is closing: no notice */ });
      else this.notify(id, got, onlyIndexed);
    });
  }

  /** Send the notice of `doc` (`id`'s row now) if it finished. */
  private notify(id: string, doc: DocumentRow | null, onlyIndexed: boolean): void {
    if (!doc) { this.awaiting.delete(id); return; }
    if (doc.status === 'indexing') return;
    this.awaiting.delete(id);
    if (onlyIndexed && doc.status !== 'indexed') return;
    const n = documentNotice(doc);
    if (n) this.d.sink(n);
  }
}
