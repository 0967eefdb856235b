/**
 * Dense retrieval through the real pipeline: the project's generated ONNX model (BERT-shaped,
 * lexical-overlap vectors) loaded by transformers.js with the real tokenizer, in the embedder's
 * worker thread; sqlite-vec sign-bit KNN with exact rescoring; fusion; EMBEDDING_DIMS change
 * recreating the collection and re-embedding with progress.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { start } from '../../services/knowledge/src/index.js';
import { writeTestModel } from '../helpers/embedder/make-test-model.js';
import { call, headersFor, knowledgeConfig, principal, removeDir, TOKENIZER } from '../helpers/embedder/service-helpers.js';

const alice = () => headersFor(principal('alice'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await sleep(100);
  }
}

test('hybrid search with the generated test model; readyz says dense is on; a dims change re-embeds', async (t) => {
  const models = writeTestModel({ tokenizerDir: TOKENIZER });
  const cfg = knowledgeConfig({ modelDirs: ['/nonexistent-first', models] });
  t.after(() => { removeDir(models); removeDir(cfg.dataDir); });
  let svc = await start(cfg);
  let base = `http://127.0.0.1:${svc.port}`;
  const ready = await waitFor(async () => (await fetch(`${base}/readyz`)).json() as Promise<{ dense_retrieval: string }>, (r) => r.dense_retrieval === 'on');
  assert.equal(ready.dense_retrieval, 'on');
  const texts = [
    ['Volcanoes', 'Basaltic lava flows from shield volcanoes in Hawaii.'],
    ['Tides', 'Lunar gravity raises ocean tides twice a day.'],
    ['Bees', 'Honeybees communicate flower locations with a waggle dance.'],
  ];
  for (const [title, content] of texts) {
    const r = await call(base, 'POST', '/v1/knowledge/ingest/text', alice(), { title, content });
    assert.equal(r.status, 201);
    assert.equal(r.body.status, 'indexed', 'small ingests answer with vectors in place');
  }
  const s = await call(base, 'POST', '/v1/knowledge/search', alice(), { query: 'waggle dance of honeybees' });
  assert.equal(s.body.retrieval.dense, true);
  assert.equal(s.body.results[0].document_title, 'Bees');
  assert.match(s.body.results[0].retrieval_rationale, /semantic match rank 1, cosine/);
  assert.match(s.body.results[0].retrieval_rationale, /reciprocal rank/);
  assert.ok(s.body.results[0].score > 0.75, 'first in both lists');
  // Dense alone finds a word-piece overlap that BM25's whole-word terms miss ("honeybee" vs "honeybees" stems differ? no: a new word).
  const batch = await call(base, 'POST', '/v1/knowledge/ingest/batch', alice(), { records: Array.from({ length: 40 }, (_, i) => ({ title: `Note ${i}`, content: `Filler note number ${i} about nothing in particular.` })) });
  assert.equal(batch.body.dense, 'pending');
  const job = await waitFor(() => call(base, 'GET', `/v1/knowledge/jobs/${batch.body.job_id}`, alice()), (j) => j.body.status === 'done');
  assert.equal(job.body.status, 'done');
  assert.equal(job.body.progress, 1);
  const doc = await call(base, 'GET', `/v1/knowledge/documents/${batch.body.documents[0].document_id}`, alice());
  assert.equal(doc.body.status, 'indexed');
  assert.equal(doc.body.chunks_embedded, doc.body.chunks_indexed);
  // Bob sees nothing of Alice's, dense path included.
  const bob = await call(base, 'POST', '/v1/knowledge/search', headersFor(principal('bob')), { query: 'waggle dance of honeybees' });
  assert.equal(bob.body.results.length, 0);
  await svc.close();

  // Same data dir, a 128-d model and EMBEDDING_DIMS=128: the collection is recreated and re-embedded.
  const models128 = writeTestModel({ dims: 128, tokenizerDir: TOKENIZER });
  t.after(() => removeDir(models128));
  svc = await start({ ...cfg, embeddingDims: 128, modelDirs: [models128] });
  base = `http://127.0.0.1:${svc.port}`;
  t.after(() => svc.close());
  const st = await waitFor(() => call(base, 'GET', '/v1/knowledge/status', alice()), (r) => r.body.reembedding && !r.body.reembedding.running);
  assert.equal(st.body.reembedding.total, 43);
  assert.equal(st.body.reembedding.done, 43);
  assert.equal(st.body.embedder.dims, 128);
  const s2 = await call(base, 'POST', '/v1/knowledge/search', alice(), { query: 'lunar gravity tides' });
  assert.equal(s2.body.results[0].document_title, 'Tides');
  assert.equal(s2.body.retrieval.dense, true);
});

test('a model of the wrong width is refused: dense off with the reason, sparse carries on', async (t) => {
  const models = writeTestModel({ dims: 64, tokenizerDir: TOKENIZER });
  const cfg = knowledgeConfig({ modelDirs: [models] });
  const svc = await start(cfg);
  t.after(async () => { await svc.close(); removeDir(models); removeDir(cfg.dataDir); });
  const base = `http://127.0.0.1:${svc.port}`;
  const st = await waitFor(() => call(base, 'GET', '/v1/knowledge/status', alice()), (r) => r.body.embedder.state !== 'loading');
  assert.equal(st.body.dense_enabled, false);
  // The load error is for admins; a user reads plain words (issue 11 item 9).
  assert.match(st.body.dense_reason, /^the embedding model could not be loaded/);
  const admin = await call(base, 'GET', '/v1/knowledge/status', headersFor(principal('root', ['admin'])));
  assert.match(admin.body.dense_reason, /64-d vectors but EMBEDDING_DIMS is 384/);
  await call(base, 'POST', '/v1/knowledge/ingest/text', alice(), { title: 'T', content: 'keyword search still works' });
  const s = await call(base, 'POST', '/v1/knowledge/search', alice(), { query: 'keyword search' });
  assert.equal(s.body.results.length, 1);
});
