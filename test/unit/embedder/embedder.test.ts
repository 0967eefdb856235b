/** The embedder with the generated test model through transformers.js: vectors, batching, priorities, absence. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEmbedder } from '../../../services/embedder/src/embedder.js';
import { locateModel } from '../../../services/embedder/src/locate.js';
import { dot, signBits } from '../../../services/embedder/src/vector.js';
import { writeTestModel } from '../../helpers/embedder/make-test-model.js';
import { removeDir, TOKENIZER } from '../../helpers/embedder/service-helpers.js';

test('no model: unavailable with a plain reason, embed rejects', async () => {
  const e = createEmbedder({ modelDirs: ['/nope/a', '/nope/b'], dims: 384 });
  const st = await e.whenSettled();
  assert.equal(st.state, 'unavailable');
  assert.match(st.reason!, /no embedding model "all-MiniLM-L6-v2" in \/nope\/a, \/nope\/b; dense retrieval is off/);
  assert.equal(e.available, false);
  await assert.rejects(e.embed(['x']));
});

test('test model through the pipeline: 384-d unit vectors, lexical overlap, batching across callers keeps order', async (t) => {
  const root = writeTestModel({ tokenizerDir: TOKENIZER });
  t.after(() => removeDir(root));
  assert.equal(locateModel(['/nope', root], 'all-MiniLM-L6-v2')?.root, root, 'search order: first folder holding the model');
  const e = createEmbedder({ modelDirs: ['/nope', root], dims: 384, maxBatch: 8 });
  t.after(() => e.close());
  assert.equal((await e.whenSettled()).state, 'ready');
  const [a, b, c] = await e.embed(['the glacier retreated up the valley', 'a glacier retreated up a valley', 'interest rates and bond yields']);
  assert.equal(a!.length, 384);
  assert.ok(Math.abs(dot(a!, a!) - 1) < 1e-4);
  assert.ok(dot(a!, b!) > 0.9);
  assert.ok(dot(a!, c!) < 0.3);
  // Many callers at once: each gets its own vectors back, in order, with query texts served first.
  const texts = Array.from({ length: 30 }, (_, i) => `caller text ${i} about topic ${i % 7}`);
  const single = await e.embed([texts[5]!]);
  const [bulk, q1, q2] = await Promise.all([e.embed(texts, 'bulk'), e.embed([texts[5]!], 'query'), e.embed(['glacier valley'], 'query')]);
  assert.equal(bulk.length, 30);
  assert.ok(dot(bulk[5]!, single[0]!) > 0.9999);
  assert.ok(dot(q1[0]!, single[0]!) > 0.9999);
  assert.ok(dot(q2[0]!, a!) > 0.3);
  assert.ok(e.status().texts_embedded >= 35);
});

test('sign bits match sqlite-vec bit order', () => {
  const v = new Float32Array([1, -1, 1, -1, -1, -1, -1, 1, 0.5]);
  assert.deepEqual([...signBits(v)], [0b10000101, 0b1]);
});
