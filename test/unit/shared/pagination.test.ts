/** The shared cursor pagination helper: opaque cursors, shape checks, limit clamping, pages from limit+1 rows. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clampLimit, decodeCursor, encodeCursor, pageFromRows, requireCursor } from '../../../services/shared/http/pagination.js';
import { isDomainError } from '../../../services/shared/kit/domain-error.js';
import { toErrorResponse } from '../../../services/shared/kit/errors.js';

interface Pos { c: string; i: string }
const isPos = (v: unknown): v is Pos => typeof v === 'object' && v !== null
  && typeof (v as Pos).c === 'string' && typeof (v as Pos).i === 'string';

test('a cursor is base64url JSON and decodes back to its position', () => {
  const pos = { c: '2025-01-02T03:04:05.000Z', i: '01J00000000000000000000000' };
  const cur = encodeCursor(pos);
  assert.equal(cur, Buffer.from(JSON.stringify(pos)).toString('base64url'));
  assert.match(cur, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeCursor(cur, isPos), pos);
  assert.deepEqual(requireCursor(cur, isPos), pos);
});

test('foreign or malformed cursors are refused with invalid_request naming the field', () => {
  for (const bad of ['not-base64-json', encodeCursor({ c: 1, i: 'x' }), encodeCursor([1, 2]), encodeCursor(null), '']) {
    assert.equal(decodeCursor(bad, isPos), null, bad);
    assert.throws(() => requireCursor(bad, isPos), (err: unknown) => {
      assert.ok(isDomainError(err));
      const res = toErrorResponse(err);
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { error: 'cursor is not a value this service issued', code: 'invalid_request', field: 'querystring.cursor' });
      return true;
    });
  }
  assert.throws(() => requireCursor('x', isPos, 'body.after'), (err: unknown) => isDomainError(err) && err.extra?.field === 'body.after');
});

test('clampLimit: default when absent or not a number, floored, clamped to [min, max]', () => {
  const b = { default: 50, max: 500 };
  assert.equal(clampLimit(undefined, b), 50);
  assert.equal(clampLimit(null, b), 50);
  assert.equal(clampLimit('abc', b), 50);
  assert.equal(clampLimit('', b), 50);
  assert.equal(clampLimit('20', b), 20);
  assert.equal(clampLimit(7.9, b), 7);
  assert.equal(clampLimit(0, b), 1);
  assert.equal(clampLimit(-5, b), 1);
  assert.equal(clampLimit(10_000, b), 500);
  assert.equal(clampLimit(Infinity, b), 50);
  assert.equal(clampLimit(1, { default: 10, max: 100, min: 5 }), 5);
});

test('pageFromRows: limit+1 rows give a cursor at the last kept row; fewer give none', () => {
  const rows = [{ c: 'c3', i: 'a' }, { c: 'c2', i: 'b' }, { c: 'c1', i: 'c' }];
  const full = pageFromRows(rows, 2, (r) => ({ c: r.c, i: r.i }));
  assert.deepEqual(full.items, rows.slice(0, 2));
  assert.deepEqual(decodeCursor(full.next_cursor!, isPos), { c: 'c2', i: 'b' });
  const last = pageFromRows(rows, 3, (r) => r);
  assert.deepEqual(last.items, rows);
  assert.equal('next_cursor' in last, false, 'no cursor on the last page');
  assert.deepEqual(pageFromRows([], 5, (r) => r), { items: [] });
});
