/**
 * Notifications of finished uploads (issue 13 item 1) over fake stores: `indexed` at once, `indexed`
 * after the last vectors of an awaited document, `failed`; none for batch documents, for vectors of
 * documents nobody awaits (a rename's re-embedding, a re-embed after EMBEDDING_DIMS), or while a
 * document is still indexing; one idempotency key per state seen.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NotificationCreate } from '../../../services/agent-runtime/src/contracts.js';
import { DocumentNotices, documentNotice } from '../../../services/knowledge/src/domain/document-notices.js';
import type { ChunkVector, DocumentRow, DocumentStore, IndexState, VectorIndex } from '../../../services/knowledge/src/domain/ports.js';

function doc(id: string, over: Partial<DocumentRow> = {}): DocumentRow {
  return {
    id, tenant_id: 't', title: `Doc ${id}`, source_type: 'file', filename: null, mime_type: null, bytes: 1, object_sha256: null, owner_user_id: 'alice',
    creator_user_id: 'alice', visibility_mode: 'private', tags: [], metadata: {}, audience_tags: [], user_grants: [], batch_id: null,
    status: 'indexing', chunks_indexed: 0, chunks_embedded: 0, last_error: null, archived_at: null, created_at: 'c', updated_at: 'u0', ...over,
  } as DocumentRow;
}

/** Fake stores: documents in a map; `put` counts embedded chunks and completes a document as the real index does. */
function setup() {
  const rows = new Map<string, DocumentRow>();
  let tick = 0;
  const documents = {
    get: (_t: string, id: string) => rows.get(id) ?? null,
    setIndexed: (id: string, s: IndexState, _now: string) => {
      const r = rows.get(id)!;
      rows.set(id, { ...r, status: s.status, chunks_indexed: s.chunks, chunks_embedded: s.embedded, updated_at: `u${++tick}` });
    },
    setFailed: (id: string, error: string) => { rows.set(id, { ...rows.get(id)!, status: 'failed', last_error: error, updated_at: `u${++tick}` }); },
    delete: (id: string) => { rows.delete(id); },
    contentOf: () => 'passes through',
  } as unknown as DocumentStore;
  const vectors = {
    put: (items: ChunkVector[]) => {
      for (const it of items) {
        const r = rows.get(it.documentId)!;
        const embedded = r.chunks_embedded + 1;
        rows.set(r.id, { ...r, chunks_embedded: embedded, status: r.status === 'indexing' && embedded >= r.chunks_indexed ? 'indexed' : r.status, updated_at: `u${++tick}` });
      }
    },
    countPending: () => 7,
  } as unknown as VectorIndex;
  const sent: NotificationCreate[] = [];
  const queue: Array<() => void> = [];
  const notices = new DocumentNotices({ tenantId: 't', sink: (n) => sent.push(n), defer: (fn) => queue.push(fn) });
  const flush = (): void => { while (queue.length) queue.shift()!(); };
  return { rows, docs: notices.watchDocuments(documents), vecs: notices.watchVectors(vectors), sent, flush };
}

const vec = (documentId: string): ChunkVector => ({ chunkId: 1, documentId, vector: new Float32Array(1) });

test('indexed at once (no dense vectors): one document_indexed for the creator with a link', () => {
  const { rows, docs, sent, flush } = setup();
  rows.set('d1', doc('d1', { creator_user_id: 'alice', owner_user_id: 'bob' }));
  docs.setIndexed('d1', { status: 'indexed', chunks: 3, embedded: 0, error: null, content: null }, 'now');
  assert.equal(sent.length, 0, 'deferred: the write may be inside a transaction');
  flush();
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.kind, 'document_indexed');
  assert.equal(sent[0]!.user_id, 'alice');
  assert.deepEqual(sent[0]!.payload, { document_id: 'd1', link: '/knowledge/d1' });
  assert.match(sent[0]!.idempotency_key!, /^document:d1:indexed:u\d+$/);
  assert.equal(docs.contentOf('d1'), 'passes through');
});

test('awaited vectors: nothing while indexing, document_indexed after the last vectors', () => {
  const { rows, docs, vecs, sent, flush } = setup();
  rows.set('d2', doc('d2'));
  docs.setIndexed('d2', { status: 'indexing', chunks: 2, embedded: 0, error: null, content: null }, 'now');
  vecs.put([vec('d2')], 'now');
  flush();
  assert.equal(sent.length, 0, 'one of two chunks');
  vecs.put([vec('d2')], 'now');
  flush();
  assert.deepEqual(sent.map((s) => s.kind), ['document_indexed']);
  vecs.put([vec('d2')], 'now');
  flush();
  assert.equal(sent.length, 1, 'no longer awaited');
  assert.equal((vecs as unknown as { countPending(): number }).countPending(), 7);
});

test('vectors of a document nobody awaits (rename, re-embed) send nothing; batch documents send nothing', () => {
  const { rows, docs, vecs, sent, flush } = setup();
  rows.set('d3', doc('d3', { status: 'indexing', chunks_indexed: 1 }));
  vecs.put([vec('d3')], 'now');
  rows.set('b1', doc('b1', { source_type: 'batch' }));
  docs.setIndexed('b1', { status: 'indexed', chunks: 1, embedded: 0, error: null, content: null }, 'now');
  docs.setFailed('b1', 'bad', 'now');
  flush();
  assert.equal(sent.length, 0);
});

test('failed: document_failed with the error; a deleted document sends nothing', () => {
  const { rows, docs, sent, flush } = setup();
  rows.set('d4', doc('d4'));
  docs.setFailed('d4', 'the PDF is damaged', 'now');
  rows.set('d5', doc('d5'));
  docs.setFailed('d5', 'x', 'now');
  docs.delete('d5');
  flush();
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.kind, 'document_failed');
  assert.equal(sent[0]!.body, 'the PDF is damaged');
  assert.equal((sent[0]!.payload as { error: string }).error, 'the PDF is damaged');
});

test('documentNotice: only indexed and failed, never batch; titles fit 200 characters', () => {
  assert.equal(documentNotice(doc('x', { status: 'indexing' })), null);
  assert.equal(documentNotice(doc('x', { status: 'indexed', source_type: 'batch' })), null);
  const long = documentNotice(doc('x', { status: 'indexed', title: 'y'.repeat(500), chunks_indexed: 1 }))!;
  assert.equal(long.title.length, 200);
  assert.equal(long.body, '1 chunk searchable.');
});
