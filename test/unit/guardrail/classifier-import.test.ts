/**
 * `models:import -- --guard` and `models:fetch -- --guard` (issue 16 item 1): importing the encoder
 * classifier from a hub-style snapshot records every file's sha256 (and the guardrail reports the
 * recorded hash of the graph it loads); a pinned hash that does not match refuses the import;
 * fetching refuses files the operator has not pinned, and a download that does not match its pin
 * never lands. The fetch runs against a local HTTP server; the model is the project's tiny one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEncoderClassifier } from '../../../services/guardrail/src/classifier/encoder.js';
import { RECORD_FILE, fetchGuardModel, importGuardModel, readPins } from '../../../scripts/models-guard.js';
import { TEST_CLASSIFIER_NAME, writeClassifierModel } from '../../helpers/guardrail/make-classifier-model.js';

const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');

/** A hub-style snapshot: every file under `onnx/`, as the classifier's repository lays them out. */
function snapshot(): string {
  const root = writeClassifierModel();
  const dir = join(root, TEST_CLASSIFIER_NAME);
  for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']) renameSync(join(dir, f), join(dir, 'onnx', f));
  return dir;
}

test('import records each file\'s sha256, and the guardrail loads the model and reports the recorded hash', async (t) => {
  const src = snapshot();
  const models = mkdtempSync(join(tmpdir(), 'models-'));
  t.after(() => { rmSync(models, { recursive: true, force: true }); rmSync(join(src, '..'), { recursive: true, force: true }); });
  const files = await importGuardModel(src, models, { name: TEST_CLASSIFIER_NAME });
  const target = join(models, TEST_CLASSIFIER_NAME);
  const record = JSON.parse(readFileSync(join(target, RECORD_FILE), 'utf8')) as { files: Array<{ path: string; sha256: string; bytes: number }> };
  assert.deepEqual(record.files, files);
  const graph = record.files.find((f) => f.path === 'onnx/model.onnx')!;
  assert.equal(graph.sha256, sha(join(src, 'onnx', 'model.onnx')));
  assert.ok(existsSync(join(target, 'config.json')) && existsSync(join(target, 'tokenizer.json')), 'top-level layout for transformers.js');
  const enc = createEncoderClassifier({ modelDirs: [models], model: TEST_CLASSIFIER_NAME, timeoutMs: 20_000, maxWindows: 2, threads: 1 });
  t.after(() => enc.close());
  const st = await enc.whenSettled();
  assert.equal(st.state, 'ready', st.reason ?? '');
  assert.equal(st.sha256, graph.sha256);
});

test('import refuses a file whose hash is not the operator\'s pin, and a snapshot without a graph', async (t) => {
  const src = snapshot();
  const models = mkdtempSync(join(tmpdir(), 'models-'));
  t.after(() => { rmSync(models, { recursive: true, force: true }); rmSync(join(src, '..'), { recursive: true, force: true }); });
  const pins = readPins(['--pin', `onnx/model.onnx=${'0'.repeat(64)}`]);
  await assert.rejects(importGuardModel(src, models, { name: TEST_CLASSIFIER_NAME, pins }), /is not the pinned/);
  assert.equal(existsSync(join(models, TEST_CLASSIFIER_NAME, RECORD_FILE)), false, 'nothing recorded');
  const good = readPins(['--pin', `onnx/model.onnx=${sha(join(src, 'onnx', 'model.onnx'))}`]);
  await importGuardModel(src, models, { name: TEST_CLASSIFIER_NAME, pins: good });
  rmSync(join(src, 'onnx', 'model.onnx'));
  await assert.rejects(importGuardModel(src, mkdtempSync(join(tmpdir(), 'models-')), { name: TEST_CLASSIFIER_NAME }), /no ONNX graph/);
  assert.throws(() => readPins(['--pin', 'config.json=abc']), /not a sha256/);
});

test('fetch refuses unpinned files and never lands a download that does not match its pin', async (t) => {
  const src = snapshot();
  const server = createServer((req, res) => {
    const p = join(src, (req.url ?? '/').replace(/^\/+/, ''));
    if (!p.startsWith(src) || !existsSync(p)) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(p));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const models = mkdtempSync(join(tmpdir(), 'models-'));
  t.after(async () => { await new Promise<void>((r) => server.close(() => r())); rmSync(models, { recursive: true, force: true }); rmSync(join(src, '..'), { recursive: true, force: true }); });
  const all = new Map(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.onnx'].map((f) => [f === 'model.onnx' ? 'onnx/model.onnx' : f, sha(join(src, 'onnx', f))]));
  const partial = new Map(all);
  partial.delete('tokenizer.json');
  await assert.rejects(fetchGuardModel(models, { base, pins: partial, name: TEST_CLASSIFIER_NAME }), /no pinned sha256 for tokenizer\.json/);
  const wrong = new Map(all);
  wrong.set('onnx/model.onnx', 'f'.repeat(64));
  await assert.rejects(fetchGuardModel(models, { base, pins: wrong, name: TEST_CLASSIFIER_NAME }), /is not the pinned/);
  assert.equal(existsSync(join(models, TEST_CLASSIFIER_NAME, 'onnx', 'model.onnx')), false, 'the mismatching graph never lands');
  assert.equal(existsSync(join(models, TEST_CLASSIFIER_NAME, 'onnx', 'model.onnx.part')), false);
  const files = await fetchGuardModel(models, { base, pins: all, name: TEST_CLASSIFIER_NAME });
  assert.deepEqual(files.map((f) => f.path).sort(), ['config.json', 'onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json']);
  const enc = createEncoderClassifier({ modelDirs: [models], model: TEST_CLASSIFIER_NAME, timeoutMs: 20_000, maxWindows: 2, threads: 1 });
  t.after(() => enc.close());
  const st = await enc.whenSettled();
  assert.equal(st.state, 'ready', st.reason ?? '');
  assert.equal(st.sha256, all.get('onnx/model.onnx'));
});
