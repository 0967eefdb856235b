/**
 * What users may read of the embedder's status (services/embedder/src/status-view.ts; issue 11
 * item 9): plain words per state, no model folder and no load error; admins read it all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { embedderStatusFor, publicDenseReason } from '../../../services/embedder/src/status-view.js';
import type { EmbedderStatus } from '../../../services/embedder/src/contracts.js';

const status = (over: Partial<EmbedderStatus>): EmbedderStatus => ({
  state: 'unavailable', model: 'all-MiniLM-L6-v2', path: '/opt/svc/assets/models/all-MiniLM-L6-v2', dims: 384, file: 'model_quantized.onnx',
  reason: 'no embedding model "all-MiniLM-L6-v2" in /opt/svc/assets/models, /home/ana/.svc/models; dense retrieval is off', texts_embedded: 0, ...over,
});

test('plain words for each state; null when ready', () => {
  assert.match(publicDenseReason({ state: 'unavailable' })!, /^no embedding model installed/);
  assert.match(publicDenseReason({ state: 'failed' })!, /^the embedding model could not be loaded/);
  assert.equal(publicDenseReason({ state: 'loading' }), 'the embedding model is still loading');
  assert.equal(publicDenseReason({ state: 'ready' }), null);
});

test('users get no folder and no load error; admins get the status as it is', () => {
  for (const st of [status({}), status({ state: 'failed', reason: 'embedding model could not be loaded (ENOENT /opt/svc/assets/models/x/model.onnx)' })]) {
    const user = embedderStatusFor(st, false);
    assert.equal(user.path, null);
    assert.ok(!JSON.stringify(user).includes('/opt/svc') && !JSON.stringify(user).includes('/home/ana'), JSON.stringify(user));
    assert.equal(user.reason, publicDenseReason(st));
    assert.equal(user.model, st.model);
    assert.equal(user.state, st.state);
    assert.deepEqual(embedderStatusFor(st, true), st);
  }
  assert.equal(embedderStatusFor(status({ state: 'ready', reason: null }), false).reason, null);
});
