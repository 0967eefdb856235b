/**
 * The kit's errors as data (services/shared/kit/domain-error.ts, errors.ts): the table lookup with
 * common codes and situation rows, the `{error, code}` mapping of every kind of thrown value, and
 * the `svc-errors` plugin as a kit-built service answers it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  COMMON_ERRORS, DomainError, invalidInput, isDomainError, isKnownCode, notFoundError, statusOf, type ErrorTable,
} from '../../../services/shared/kit/domain-error.js';
import { toErrorResponse, type ErrorResponse } from '../../../services/shared/kit/errors.js';
import { buildService, defineService } from '../../../services/shared/kit/service.js';
import { AppError } from '../../../services/shared/http/errors.js';
import { servicePrincipal, signStamp } from '../../../services/shared/identity/principal.js';
import { KEYS, commonConfig, silentLogger } from './support.js';

const TABLE = {
  document_not_found: 404,
  ingestion_failed: 422,
  provider_key_missing: { registration: 422, chat: 503 },
  model_unknown: { role_mapping: 400, default: 404 },
} as const satisfies ErrorTable;

test('statusOf: table rows first, then the common codes; an unlisted code is 500', () => {
  assert.equal(statusOf(TABLE, 'document_not_found'), 404);
  assert.equal(statusOf(TABLE, 'ingestion_failed'), 422);
  assert.equal(statusOf(TABLE, 'conflict'), 409);
  assert.equal(statusOf(TABLE, 'rate_limited'), 429);
  assert.equal(statusOf(TABLE, 'not_ready'), 503);
  assert.equal(statusOf(TABLE, 'no_such_code'), 500);
  // A table may override a common code's status for its service.
  assert.equal(statusOf({ conflict: 422 }, 'conflict'), 422);
  // Inherited object keys are not codes.
  assert.equal(statusOf(TABLE, 'toString'), 500);
  assert.equal(isKnownCode(TABLE, 'toString'), false);
});

test('statusOf: a situation row answers per situation, its default otherwise, else 500', () => {
  assert.equal(statusOf(TABLE, 'provider_key_missing', 'registration'), 422);
  assert.equal(statusOf(TABLE, 'provider_key_missing', 'chat'), 503);
  assert.equal(statusOf(TABLE, 'provider_key_missing'), 500, 'no situation and no default: a bug, 500');
  assert.equal(statusOf(TABLE, 'provider_key_missing', 'elsewhere'), 500);
  assert.equal(statusOf(TABLE, 'model_unknown', 'role_mapping'), 400);
  assert.equal(statusOf(TABLE, 'model_unknown', 'chat'), 404);
  assert.equal(statusOf(TABLE, 'model_unknown'), 404);
});

test('COMMON_ERRORS holds the statuses DESIGN.md names', () => {
  assert.equal(COMMON_ERRORS.invalid_request, 400);
  assert.equal(COMMON_ERRORS.admin_required, 403);
  assert.equal(COMMON_ERRORS.not_found, 404);
  assert.equal(COMMON_ERRORS.payload_too_large, 413);
  assert.equal(COMMON_ERRORS.service_unavailable, 503);
  assert.equal(isKnownCode({}, 'forbidden'), true);
  assert.equal(isKnownCode(TABLE, 'ingestion_failed'), true);
  assert.equal(isKnownCode(TABLE, 'made_up'), false);
});

test('DomainError carries code, message, extra, headers, situation and cause; isDomainError by class or shape', () => {
  const cause = new Error('disk');
  const e = new DomainError('ingestion_failed', 'could not parse', { extra: { document_id: 'd1' }, headers: { 'retry-after': '3' }, situation: 'x', cause });
  assert.equal(e.code, 'ingestion_failed');
  assert.equal(e.message, 'could not parse');
  assert.equal(e.name, 'DomainError');
  assert.deepEqual(e.extra, { document_id: 'd1' });
  assert.deepEqual(e.headers, { 'retry-after': '3' });
  assert.equal(e.situation, 'x');
  assert.equal(e.cause, cause);
  assert.ok(e instanceof Error);
  assert.equal(isDomainError(e), true);
  assert.equal(isDomainError({ name: 'DomainError', code: 'x', message: 'm' }), true, 'a copy from another module instance');
  assert.equal(isDomainError({ name: 'DomainError' }), false);
  assert.equal(isDomainError(new Error('x')), false);
  assert.equal(isDomainError(null), false);
  assert.deepEqual(invalidInput('bad email', 'body.email').extra, { field: 'body.email' });
  assert.equal(invalidInput('bad').extra, undefined);
  assert.equal(notFoundError().code, 'not_found');
});

test('toErrorResponse: a DomainError answers its table status with extra fields and headers', () => {
  const r = toErrorResponse(new DomainError('ingestion_failed', 'could not parse', { extra: { document_id: 'd1' }, headers: { 'retry-after': '3' } }), TABLE);
  assert.deepEqual(r, { status: 422, body: { error: 'could not parse', code: 'ingestion_failed', document_id: 'd1' }, headers: { 'retry-after': '3' } });
  const chat = toErrorResponse(new DomainError('provider_key_missing', 'no key', { situation: 'chat' }), TABLE);
  assert.equal(chat.status, 503);
  assert.deepEqual(chat.body, { error: 'no key', code: 'provider_key_missing' });
  assert.equal(chat.headers, undefined);
  assert.equal(toErrorResponse(new DomainError('provider_key_missing', 'no key', { situation: 'registration' }), TABLE).status, 422);
  assert.equal(toErrorResponse(new DomainError('conflict', 'taken'), TABLE).status, 409);
});

test('toErrorResponse: extra fields cannot replace error or code', () => {
  const r = toErrorResponse(new DomainError('document_not_found', 'gone', { extra: { error: 'spoofed', code: 'ok', id: 'd' } }), TABLE);
  assert.deepEqual(r.body, { error: 'gone', code: 'document_not_found', id: 'd' });
});

test('toErrorResponse: a code no table lists answers a generic 500 without the message', () => {
  const r = toErrorResponse(new DomainError('secret_internal_state', 'SELECT * FROM x failed at /var/lib'), TABLE);
  assert.deepEqual(r, { status: 500, body: { error: 'internal error', code: 'internal_error' } });
});

test('toErrorResponse: AppError passes through with its field and headers', () => {
  const r = toErrorResponse(new AppError(401, 'token_expired', 'expired', { headers: { 'www-authenticate': 'Bearer' } }));
  assert.deepEqual(r, { status: 401, body: { error: 'expired', code: 'token_expired' }, headers: { 'www-authenticate': 'Bearer' } });
  const f = toErrorResponse(new AppError(400, 'invalid_request', 'bad', { field: 'body.x' }));
  assert.deepEqual(f, { status: 400, body: { error: 'bad', code: 'invalid_request', field: 'body.x' } });
});

test('toErrorResponse: schema failures name the field path; framework codes map to stable codes', () => {
  const v = toErrorResponse(Object.assign(new Error('body/items/0 must be string'), { validation: [{ instancePath: '/items/0' }], validationContext: 'body' }));
  assert.deepEqual(v, { status: 400, body: { error: 'body/items/0 must be string', code: 'invalid_request', field: 'body.items.0' } });
  const missing = toErrorResponse(Object.assign(new Error("querystring must have required property 'q'"), { validation: [{ instancePath: '', params: { missingProperty: 'q' } }], validationContext: 'querystring' }));
  assert.equal(missing.body.field, 'querystring.q');
  const json = toErrorResponse(Object.assign(new Error('Unexpected token'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 }));
  assert.deepEqual(json, { status: 400, body: { error: 'request body is not valid JSON', code: 'invalid_request' } });
  const big = toErrorResponse(Object.assign(new Error('Request body is too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }));
  assert.deepEqual(big, { status: 413, body: { error: 'Request body is too large', code: 'payload_too_large' } });
  assert.equal(toErrorResponse(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' })).body.code, 'unsupported_media_type');
});

test('toErrorResponse: other 4xx keep status and a snake_case code; 5xx and plain errors say nothing inside', () => {
  assert.deepEqual(toErrorResponse(Object.assign(new Error('slow down'), { statusCode: 429, code: 'rate_limited' })),
    { status: 429, body: { error: 'slow down', code: 'rate_limited' } });
  assert.equal(toErrorResponse(Object.assign(new Error('x'), { statusCode: 404, code: 'FST_ERR_SOMETHING' })).body.code, 'invalid_request');
  assert.deepEqual(toErrorResponse(new Error('ENOENT /etc/secret')), { status: 500, body: { error: 'internal error', code: 'internal_error' } });
  assert.deepEqual(toErrorResponse(Object.assign(new Error('db down'), { statusCode: 503 })), { status: 503, body: { error: 'internal error', code: 'internal_error' } });
  assert.equal(toErrorResponse(Object.assign(new Error('odd'), { statusCode: 700 })).status, 500);
  assert.equal(toErrorResponse('a string').status, 500);
});

test('svc-errors plugin: a kit-built service answers table statuses, schema failures and unknown routes', async () => {
  const answers: ErrorResponse[] = [];
  const def = defineService({
    name: 'sandbox',
    errors: TABLE,
    errorHooks: () => ({ onErrorAnswer: (_req, reply, res) => { answers.push(res); void reply.header('x-seen', String(res.status)); } }),
    setup: async ({ app }) => {
      app.get('/doc', { config: { public: true } }, async () => { throw new DomainError('document_not_found', 'no document d1', { extra: { document_id: 'd1' } }); });
      app.get('/chat', { config: { public: true } }, async () => { throw new DomainError('provider_key_missing', 'no key', { situation: 'chat' }); });
      app.get('/bug', { config: { public: true } }, async () => { throw new DomainError('never_listed', 'internal detail'); });
      app.post('/typed', {
        config: { public: true },
        schema: { body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } },
      }, async () => ({ ok: true }));
    },
  });
  const built = await buildService(def, commonConfig(), {}, { logger: silentLogger() });
  try {
    const doc = await built.app.inject({ method: 'GET', url: '/doc' });
    assert.equal(doc.statusCode, 404);
    assert.deepEqual(doc.json(), { error: 'no document d1', code: 'document_not_found', document_id: 'd1' });
    assert.equal(doc.headers['x-seen'], '404');
    assert.match(String(doc.headers['content-type']), /^application\/json/);

    const chat = await built.app.inject({ method: 'GET', url: '/chat' });
    assert.equal(chat.statusCode, 503);
    assert.equal(chat.json().code, 'provider_key_missing');

    const bug = await built.app.inject({ method: 'GET', url: '/bug' });
    assert.equal(bug.statusCode, 500);
    assert.deepEqual(bug.json(), { error: 'internal error', code: 'internal_error' });

    const bad = await built.app.inject({ method: 'POST', url: '/typed', payload: { n: 'x' } });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'invalid_request');
    assert.equal(bad.json().field, 'body.n');

    const notJson = await built.app.inject({ method: 'POST', url: '/typed', headers: { 'content-type': 'application/json' }, payload: '{nope' });
    assert.equal(notJson.statusCode, 400);
    assert.deepEqual(notJson.json(), { error: 'request body is not valid JSON', code: 'invalid_request' });

    const stamp = signStamp(servicePrincipal('gateway', 'acme'), KEYS);
    const none = await built.app.inject({ method: 'GET', url: '/nope?x=1', headers: { 'x-svc-principal': stamp } });
    assert.equal(none.statusCode, 404);
    assert.deepEqual(none.json(), { error: 'no route for GET /nope', code: 'not_found' });

    assert.deepEqual(answers.map((a) => a.status), [404, 503, 500, 400, 400], 'the hook sees every error answer, not the 404 of unknown routes');
  } finally {
    await built.close();
  }
});
