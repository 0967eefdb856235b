/**
 * Issue 19 item 5 (gap: knowledge ingests were not cancellable), on the real knowledge store
 * (SQLite, migrations): a running batch ingest whose chunks wait for vectors is cancelled by an
 * admin; the answer says what was kept (every document, keyword-indexed, and the vectors made so
 * far); the embedding pump's queue no longer offers the batch's remaining chunks while other
 * documents' chunks stay queued; a second cancel and a user's cancel are refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openKnowledgeStore } from '../../services/knowledge/src/store/knowledge-store.js';
import { Jobs } from '../../services/knowledge/src/domain/jobs.js';
import type { Principal } from '../../services/shared/identity/principal.js';
import { REPO_ROOT } from '../helpers/embedder/service-helpers.js';

const migrations = join(REPO_ROOT, 'migrations');

test('a running batch ingest is cancelled between chunk batches and answers what was kept', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-kcancel-'));
  const store = openKnowledgeStore(dir, migrations);
  try {
    const now = new Date().toISOString();
    const doc = (id: string, batch: string | null): void => {
      store.documents.insert({
        id, tenant_id: 'acme', title: id, source_type: 'batch', filename: null, mime_type: 'text/plain', bytes: 10, object_sha256: null,
        owner_user_id: 'u1', creator_user_id: 'u1', visibility_mode: 'private', tags: [], metadata: {}, audience_tags: [], user_grants: [], batch_id: batch, now,
      } as Parameters<typeof store.documents.insert>[0]);
      const ids = store.chunks.replace(id, [0, 1, 2].map((i) => ({ chunk_index: i, heading: null, content: `${id} chunk ${i}`, titleTerms: id, bodyTerms: `chunk ${i}` })));
      store.documents.setIndexed(id, { status: 'indexing', chunks: ids.length, embedded: 0, error: null, content: 'x' }, now);
    };
    store.vectors.ensure(384);
    doc('doc-a', 'batch-1'); doc('doc-b', 'batch-1'); doc('doc-other', null);
    store.jobs.create('batch-1', 'acme', 'batch_ingest', 'u1', 6, now);
    // The pump embedded doc-a's chunks before the cancel.
    const first = store.vectors.pending(100).filter((c) => c.document_id === 'doc-a');
    store.vectors.put(first.map((c) => ({ chunkId: c.chunk_id, documentId: c.document_id, vector: new Float32Array(384).fill(0.1) })), now);

    const embedder = { available: true, status: () => ({ state: 'ready' }) } as unknown as ConstructorParameters<typeof Jobs>[0]['embedder'];
    const jobs = new Jobs({ tenantId: 'acme', jobs: store.jobs, documents: store.documents, embedder });
    const admin = { id: 'admin-1', tenant_id: 'acme', roles: ['admin'], groups: [], exp: 0 } as unknown as Principal;
    const user = { id: 'u1', tenant_id: 'acme', roles: ['user'], groups: [], exp: 0 } as unknown as Principal;
    assert.equal((await jobs.job(admin, 'batch-1')).status, 'running');
    await assert.rejects(() => jobs.cancel(user, 'batch-1'), (e: Error & { code?: string }) => e.code === 'admin_required');

    const r = await jobs.cancel(admin, 'batch-1');
    assert.equal(r.status, 'cancelled');
    assert.deepEqual(r.kept, { documents: 2, chunks: 6, chunks_embedded: 3 });
    const queued = store.vectors.pending(100).map((c) => c.document_id);
    assert.ok(!queued.includes('doc-b'), 'the batch\'s remaining chunks leave the pump\'s queue');
    assert.deepEqual([...new Set(queued)], ['doc-other'], 'other documents keep waiting for vectors');
    assert.equal(store.documents.batchProgress('batch-1').indexed, 2, 'the batch\'s documents stay, keyword-indexed');
    await assert.rejects(() => jobs.cancel(admin, 'batch-1'), (e: Error & { code?: string }) => e.code === 'conflict');
    await assert.rejects(() => jobs.cancel(admin, 'nope'), (e: Error & { code?: string }) => e.code === 'job_not_found');
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
