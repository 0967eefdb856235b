/**
 * One reading of a path (issue 11, item 10): the gateway's normaliser decodes unreserved escapes,
 * collapses slashes, removes dot segments and refuses encoded separators.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalisePath } from '../../../services/gateway/src/domain/path.js';

const ok = (raw: string): string => {
  const n = normalisePath(raw);
  assert.ok(n.ok, `${raw} refused`);
  return n.path;
};

test('plain paths pass unchanged', () => {
  for (const p of ['/', '/v1/sessions', '/v1/admin/users/01H', '/assets/app.js', '/v1/x/']) assert.equal(ok(p), p);
});

test('unreserved escapes decode; others stay encoded, upper-cased', () => {
  assert.equal(ok('/v1/%61dmin/approvals'), '/v1/admin/approvals');
  assert.equal(ok('/v1/%41%64min'), '/v1/Admin');
  assert.equal(ok('/v1/a%7eb%2Dc%2e'), '/v1/a~b-c.');
  assert.equal(ok('/v1/files/a%20b'), '/v1/files/a%20b');
  assert.equal(ok('/v1/files/a%3fb'), '/v1/files/a%3Fb');
});

test('repeated slashes and dot segments, including encoded dots, are resolved', () => {
  assert.equal(ok('/v1//admin///approvals'), '/v1/admin/approvals');
  assert.equal(ok('/v1/./admin/approvals'), '/v1/admin/approvals');
  assert.equal(ok('/v1/sessions/../admin/approvals'), '/v1/admin/approvals');
  assert.equal(ok('/v1/sessions/%2e%2e/admin'), '/v1/admin');
  assert.equal(ok('/../../v1/admin'), '/v1/admin');
  assert.equal(ok('/v1/admin/.'), '/v1/admin/');
});

test('encoded slash, backslash, NUL and malformed escapes are refused', () => {
  for (const raw of ['/v1/admin%2Fusers', '/v1%2fadmin', '/v1/a%5Cb', '/v1/a%00', '/v1/%zz', '/v1/%4']) {
    const n = normalisePath(raw);
    assert.equal(n.ok, false, raw);
  }
  assert.deepEqual(normalisePath('/v1%2Fadmin'), { ok: false, reason: 'encoded_separator' });
  assert.deepEqual(normalisePath('/v1/%g1'), { ok: false, reason: 'malformed_escape' });
});
