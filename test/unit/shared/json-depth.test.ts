/**
 * The JSON depth scanner (services/shared/kit/json-depth.ts; issue 11 item 4) and the kit's
 * depth-checked JSON body parser (json-body.ts): depth counted over the raw text, brackets inside
 * strings and escapes ignored, linear time on 100,000-deep and adversarial inputs, and a service
 * built by the kit answering 400 `json_too_deep` where it used to run recursive code and answer 500.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JSON_MAX_DEPTH, jsonNestingDepth, jsonTooDeep } from '../../../services/shared/kit/json-depth.js';
import { buildService, defineService } from '../../../services/shared/kit/service.js';
import { commonConfig, silentLogger } from './support.js';

const arrays = (n: number): string => '['.repeat(n) + ']'.repeat(n);
const objects = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

test('depth of scalars, flat and nested values', () => {
  assert.equal(jsonNestingDepth('1'), 0);
  assert.equal(jsonNestingDepth('"x"'), 0);
  assert.equal(jsonNestingDepth('{}'), 1);
  assert.equal(jsonNestingDepth('[{}]'), 2);
  assert.equal(jsonNestingDepth('{"a":[1,{"b":[]}],"c":{}}'), 4);
  assert.equal(jsonNestingDepth('[[],[],[[]]]'), 3);
  assert.equal(jsonNestingDepth(arrays(64)), 64);
  assert.equal(jsonNestingDepth(objects(65)), 65);
  // Depth agrees with the real structure on a generated value.
  const v: unknown[] = [];
  let cur = v;
  for (let i = 1; i < 30; i++) { const next: unknown[] = []; cur.push({ k: next, s: '[{' }); cur = next; }
  assert.equal(jsonNestingDepth(JSON.stringify(v)), 59);
});

test('brackets inside strings do not count; escaped quotes and backslashes are honoured', () => {
  assert.equal(jsonNestingDepth('{"a":"[[[[{{{{"}'), 1);
  assert.equal(jsonNestingDepth('["\\"[[[["]'), 1);
  assert.equal(jsonNestingDepth('["\\\\",[[]]]'), 3, 'an escaped backslash does not escape the closing quote');
  assert.equal(jsonNestingDepth('["\\\\\\"[[",[]]'), 2, 'three backslashes then a quote: the quote is escaped');
  assert.equal(jsonNestingDepth(JSON.stringify({ k: 'a"b\\c[{', l: ['x\\', ['"']] })), 3);
  assert.equal(jsonNestingDepth('["never closes [[[[['), 1, 'an unterminated string ends the scan');
});

test('stops early once past the limit and jsonTooDeep agrees with the limit', () => {
  assert.equal(jsonNestingDepth(arrays(100_000), 64), 65);
  assert.equal(jsonTooDeep(arrays(JSON_MAX_DEPTH)), false);
  assert.equal(jsonTooDeep(arrays(JSON_MAX_DEPTH + 1)), true);
  assert.equal(jsonTooDeep(objects(8), 8), false);
  assert.equal(jsonTooDeep(objects(9), 8), true);
});

test('linear time: 100,000-deep, long strings and backslash runs scan in milliseconds, no stack', () => {
  const inputs = [
    arrays(100_000),
    objects(100_000),
    JSON.stringify({ s: 'x'.repeat(4_000_000) }),
    `["${'\\\\'.repeat(500_000)}"]`,
    `[${'"\\\\\\"",'.repeat(200_000)}1]`,
  ];
  for (const text of inputs) {
    const t0 = performance.now();
    jsonNestingDepth(text);
    assert.ok(performance.now() - t0 < 1000, `scan of ${text.length} chars took too long`);
  }
  assert.equal(jsonNestingDepth(arrays(1_000_000)), 1_000_000);
});

test('a kit service answers 400 json_too_deep to a 100,000-deep body and still answers after', async () => {
  const built = await buildService(defineService({
    name: 'sandbox', errors: {},
    setup: ({ app }) => { app.post('/echo', { config: { public: true } }, async (req) => ({ got: req.body })); },
  }), commonConfig('sandbox'), {}, { logger: silentLogger() });
  try {
    const post = (payload: string) => built.app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload });
    for (const body of [arrays(100_000), `{"detail":${objects(20_000)}}`, arrays(JSON_MAX_DEPTH + 1)]) {
      const r = await post(body);
      assert.equal(r.statusCode, 400);
      assert.equal(r.json().code, 'json_too_deep');
      assert.equal(r.json().max_depth, JSON_MAX_DEPTH);
    }
    const ok = await post(JSON.stringify({ a: [{ b: '[[[[[[' }] }));
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), { got: { a: [{ b: '[[[[[[' }] } });
    const atLimit = await post(arrays(JSON_MAX_DEPTH));
    assert.equal(atLimit.statusCode, 200);
    // fastify's own checks still run behind the depth check: malformed JSON and prototype poisoning.
    assert.equal((await post('{"a":')).json().code, 'invalid_request');
    const poisoned = await post('{"__proto__":{"admin":true}}');
    assert.equal(poisoned.statusCode, 400);
    assert.equal(poisoned.json().code, 'invalid_request');
    const charset = await built.app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json; charset=utf-8' }, payload: arrays(1000) });
    assert.equal(charset.json().code, 'json_too_deep');
  } finally { await built.close(); }
});

test('a service may set its own depth limit', async () => {
  const built = await buildService(defineService({
    name: 'sandbox', errors: {}, jsonMaxDepth: 8,
    setup: ({ app }) => { app.post('/echo', { config: { public: true } }, async (req) => ({ got: req.body })); },
  }), commonConfig('sandbox'), {}, { logger: silentLogger() });
  try {
    const post = (payload: string) => built.app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload });
    assert.equal((await post(objects(8))).statusCode, 200);
    const r = await post(objects(9));
    assert.equal(r.statusCode, 400);
    assert.deepEqual(r.json(), { error: 'request body nests deeper than 8 levels', code: 'json_too_deep', max_depth: 8 });
  } finally { await built.close(); }
});
