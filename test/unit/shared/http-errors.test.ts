/**
 * services/shared/http: `AppError` and its helpers, and the framework-level `{error, code}` answers
 * (malformed URLs, connection-level parse errors).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, forbidden, invalidRequest, notFound, unauthorized } from '../../../services/shared/http/errors.js';
import { clientErrorHandler, errorOptions, frameworkErrors } from '../../../services/shared/http/framework-errors.js';

test('AppError: status, code, message, field and headers; toBody keeps only error, code, field', () => {
  const e = new AppError(409, 'conflict', 'email taken', { field: 'body.email', headers: { 'x-a': '1' } });
  assert.equal(e.name, 'AppError');
  assert.equal(e.status, 409);
  assert.deepEqual(e.toBody(), { error: 'email taken', code: 'conflict', field: 'body.email' });
  assert.deepEqual(e.headers, { 'x-a': '1' });
  assert.deepEqual(new AppError(500, 'internal_error', 'x').toBody(), { error: 'x', code: 'internal_error' });
});

test('helpers: invalidRequest 400, notFound 404, forbidden 403, unauthorized 401 with a Bearer challenge', () => {
  assert.deepEqual(invalidRequest('bad', 'query.limit').toBody(), { error: 'bad', code: 'invalid_request', field: 'query.limit' });
  assert.equal(invalidRequest('bad').field, undefined);
  assert.deepEqual([notFound().status, notFound().code, notFound().message], [404, 'not_found', 'not found']);
  assert.deepEqual([forbidden().status, forbidden('no', 'admin_required').code], [403, 'admin_required']);
  const u = unauthorized('expired', 'token_expired');
  assert.deepEqual([u.status, u.code, u.headers], [401, 'token_expired', { 'www-authenticate': 'Bearer' }]);
});

/** A reply double that records what is sent. */
function replyDouble(): { reply: FastifyReply; sent: { status?: number; type?: string; body?: unknown } } {
  const sent: { status?: number; type?: string; body?: unknown } = {};
  const reply = {
    code(s: number) { sent.status = s; return this; },
    type(t: string) { sent.type = t; return this; },
    send(b: unknown) { sent.body = b; return this; },
  };
  return { reply: reply as unknown as FastifyReply, sent };
}

test('frameworkErrors: a bad URL and other framework errors answer 400 invalid_request', () => {
  const a = replyDouble();
  frameworkErrors(Object.assign(new Error('x'), { code: 'FST_ERR_BAD_URL' }), {} as FastifyRequest, a.reply);
  assert.deepEqual(a.sent, { status: 400, type: 'application/json', body: { error: 'the request URL is not valid (bad percent-encoding)', code: 'invalid_request' } });
  const b = replyDouble();
  frameworkErrors(new Error('x'), {} as FastifyRequest, b.reply);
  assert.deepEqual(b.sent.body, { error: 'the request could not be parsed', code: 'invalid_request' });
  assert.equal(errorOptions.frameworkErrors, frameworkErrors as unknown);
  assert.equal(errorOptions.clientErrorHandler, clientErrorHandler);
});

/** A socket double recording what is written. */
function socketDouble(writable = true): { socket: Socket; out: string[]; destroyed: () => boolean } {
  const out: string[] = [];
  let destroyed = false;
  const socket = { writable, end(s: string) { out.push(s); }, destroy() { destroyed = true; } };
  return { socket: socket as unknown as Socket, out, destroyed: () => destroyed };
}

test('clientErrorHandler: 431, 408 or 400 as JSON with a matching Content-Length, then close', () => {
  for (const [code, status, body] of [
    ['HPE_HEADER_OVERFLOW', '431 Request Header Fields Too Large', { error: 'request headers are too large', code: 'header_too_large' }],
    ['ERR_HTTP_REQUEST_TIMEOUT', '408 Request Timeout', { error: 'request timed out', code: 'request_timeout' }],
    ['HPE_INVALID_METHOD', '400 Bad Request', { error: 'malformed HTTP request', code: 'invalid_request' }],
  ] as const) {
    const s = socketDouble();
    clientErrorHandler(Object.assign(new Error('x'), { code }), s.socket);
    const [head, json] = s.out[0]!.split('\r\n\r\n');
    assert.match(head!, new RegExp(`^HTTP/1.1 ${status}\r\n`));
    assert.match(head!, /Content-Type: application\/json/);
    assert.match(head!, /Connection: close/);
    assert.deepEqual(JSON.parse(json!), body);
    assert.match(head!, new RegExp(`Content-Length: ${Buffer.byteLength(json!)}`));
  }
  const gone = socketDouble(false);
  clientErrorHandler(new Error('x'), gone.socket);
  assert.deepEqual(gone.out, []);
  assert.equal(gone.destroyed(), true);
});
