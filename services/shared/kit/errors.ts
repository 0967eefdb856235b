/**
 * The `svc-errors` plugin: the one `{error, code}` error handler and 404 of every service,
 * the gateway included (DESIGN.md "Errors").
 *
 * - `DomainError`: status from the service's `ErrorTable` (issue 10), extra fields in the body;
 * - `AppError` (HTTP-layer code that names its status itself): passed through;
 * - malformed JSON and schema failures: 400 `invalid_request` with the field path;
 * - anything else: a 4xx keeps its status; a 5xx is logged and answers `internal_error` with no
 *   internals (stack, SQL, paths).
 */
import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorBody } from '../http/errors.js';
import { isDomainError, isKnownCode, statusOf, type ErrorTable } from './domain-error.js';

/** What a failed request answers: status, JSON body and extra headers. */
export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
}

const FASTIFY_CODE_MAP: Record<string, { status: number; code: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid_request' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'invalid_request' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'invalid_request' },
  FST_ERR_VALIDATION: { status: 400, code: 'invalid_request' },
};

/**
 * Map any thrown value to a status and `{error, code}` body; 5xx bodies are generic.
 * @param table the service's error table (`contracts.ts`); common codes need not be listed.
 */
export function toErrorResponse(err: unknown, table: ErrorTable = {}): ErrorResponse {
  if (isDomainError(err)) {
    // A code no table lists is a bug: answer a plain 500 without the message.
    if (!isKnownCode(table, err.code)) return { status: 500, body: { error: 'internal error', code: 'internal_error' } };
    const status = statusOf(table, err.code, err.situation);
    const body = { error: err.message, code: err.code, ...withoutReserved(err.extra) };
    return err.headers ? { status, body, headers: { ...err.headers } } : { status, body };
  }
  if (err instanceof AppError) {
    return err.headers ? { status: err.status, body: err.toBody(), headers: err.headers } : { status: err.status, body: err.toBody() };
  }
  const fe = err as Partial<FastifyError> & { validation?: Array<{ instancePath?: string; params?: { missingProperty?: string } }>; validationContext?: string };
  if (fe && Array.isArray(fe.validation)) {
    const first = fe.validation[0];
    const base = fe.validationContext ?? 'body';
    let path = first?.instancePath ? `${base}${first.instancePath.replace(/\//g, '.')}` : base;
    if (first?.params?.missingProperty) path = `${path}.${first.params.missingProperty}`;
    return { status: 400, body: { error: fe.message ?? 'invalid request', code: 'invalid_request', field: path } };
  }
  const mapped = fe?.code ? FASTIFY_CODE_MAP[fe.code] : undefined;
  if (mapped) {
    const msg = mapped.code === 'invalid_request' && fe.code?.includes('JSON') ? 'request body is not valid JSON' : (fe.message ?? 'bad request');
    return { status: mapped.status, body: { error: msg, code: mapped.code } };
  }
  const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    const code = typeof fe.code === 'string' && /^[a-z][a-z0-9_]*$/.test(fe.code) ? fe.code : 'invalid_request';
    return { status, body: { error: fe.message ?? 'bad request', code } };
  }
  return { status: status >= 500 && status < 600 ? status : 500, body: { error: 'internal error', code: 'internal_error' } };
}

function withoutReserved(extra: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  if (!extra) return {};
  const { error: _e, code: _c, ...rest } = extra;
  return rest;
}

/** Options of the `svc-errors` plugin. */
export interface ErrorsPluginOptions {
  /** The service's code-to-status table (`contracts.ts`). */
  table: ErrorTable;
  /**
   * Called before an error answer is sent (the gateway counts rejections and adds its turn
   * header here). Must not send.
   */
  onErrorAnswer?: (req: FastifyRequest, reply: FastifyReply, res: ErrorResponse) => void;
}

/** Register the error handler and the 404 handler (`not_found`). */
export const errorsPlugin = fp<ErrorsPluginOptions>(async (app, opts) => {
  app.setErrorHandler((err, req, reply) => {
    const res = toErrorResponse(err, opts.table);
    if (res.status >= 500) req.log.error({ err, url: req.url.split('?')[0], method: req.method }, 'request failed');
    opts.onErrorAnswer?.(req, reply, res);
    if (res.headers) void reply.headers(res.headers);
    void reply.code(res.status).type('application/json').send(res.body);
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send({ error: `no route for ${req.method} ${req.url.split('?')[0]}`, code: 'not_found' });
  });
}, { name: 'svc-errors', fastify: '5.x' });
